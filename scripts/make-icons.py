#!/usr/bin/env python3
"""Draws the page's icons (src/web/icon-*.png): a turnstile-like mark, a hexagon with a
post in it, white on the header's slate, inside the central 80% that a maskable icon
keeps. Run it again after changing the drawing; the PNGs are committed."""
import math
import struct
import sys
import zlib
from pathlib import Path

BACKGROUND = (0x2F, 0x3E, 0x46)
MARK = (0xFF, 0xFF, 0xFF)
ACCENT = (0xE9, 0xC4, 0x6A)


def inside_hexagon(x, y, radius):
    # A pointy-top hexagon centred at 0, 0.
    x, y = abs(x), abs(y)
    return y <= radius and x <= radius * math.sqrt(3) / 2 and y <= radius - x / math.sqrt(3)


def colour_at(x, y):
    """The colour at (x, y), both in -1..1."""
    outer, ring = 0.62, 0.12
    if inside_hexagon(x, y, outer) and not inside_hexagon(x, y, outer - ring):
        return MARK
    # The post: a bar and its cap.
    if abs(x) <= 0.07 and -0.30 <= y <= 0.32:
        return MARK
    if (x ** 2 + (y + 0.30) ** 2) <= 0.14 ** 2:
        return ACCENT
    return BACKGROUND


def draw(size, samples=4):
    rows = []
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            total = [0, 0, 0]
            for sy in range(samples):
                for sx in range(samples):
                    x = ((px + (sx + 0.5) / samples) / size) * 2 - 1
                    y = ((py + (sy + 0.5) / samples) / size) * 2 - 1
                    for channel, value in enumerate(colour_at(x, y)):
                        total[channel] += value
            row.extend(round(value / samples ** 2) for value in total)
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "src/web")
    for size in (192, 512):
        (out / f"icon-{size}.png").write_bytes(draw(size))
