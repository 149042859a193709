#!/usr/bin/env python3
"""Draws folded stacks (`stack;frames count` per line, root first) as a flame graph SVG:
each frame a box as wide as its share of the samples, its callers below it."""
import html
import sys

WIDTH, ROW, FONT = 1600, 16, 11


def main(folded_path, svg_path, title):
    root = {"name": "all", "count": 0, "children": {}}
    for line in open(folded_path):
        stack, _, count = line.rstrip().rpartition(" ")
        count = int(count)
        root["count"] += count
        node = root
        for frame in stack.split(";"):
            node = node["children"].setdefault(frame, {"name": frame, "count": 0, "children": {}})
            node["count"] += count
    boxes = []

    def place(node, x, depth):
        boxes.append((x, depth, node))
        for child in sorted(node["children"].values(), key=lambda child: child["name"]):
            place(child, x, depth + 1)
            x += child["count"]

    place(root, 0, 0)
    depth = max(d for _, d, _ in boxes) + 1
    height = depth * ROW + 40
    scale = WIDTH / max(root["count"], 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="monospace" font-size="{FONT}">',
           f'<text x="4" y="16" font-size="14">{html.escape(title)}</text>']
    for x, d, node in boxes:
        width = node["count"] * scale
        if width < 2:
            continue
        y = height - (d + 1) * ROW
        share = 100.0 * node["count"] / max(root["count"], 1)
        hue = 10 + (hash(node["name"]) % 50)
        label = html.escape(node["name"])
        out.append(f'<g><title>{label} ({share:.1f} %)</title>'
                   f'<rect x="{x * scale:.1f}" y="{y}" width="{width:.1f}" height="{ROW - 1}" '
                   f'fill="hsl({hue},80%,60%)"/>')
        chars = int(width / (FONT * 0.6))
        if chars > 3:
            text = node["name"] if len(node["name"]) <= chars else node["name"][: chars - 2] + ".."
            out.append(f'<text x="{x * scale + 2:.1f}" y="{y + ROW - 4}">{html.escape(text)}</text>')
        out.append("</g>")
    out.append("</svg>")
    open(svg_path, "w").write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
