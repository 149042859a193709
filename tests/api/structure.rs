//! The shape of the code itself: no circle of imports between the files of a crate (a file
//! that needs another must not be needed by it, directly or round about), and no source
//! file over 1,000 lines. A newcomer reads the folder tree from the bottom up; a circle
//! would make two rooms one, and a huge file hides several.
//!
//! The imports are read as text: every `use` tree and every `crate::`, `self::` and
//! `super::` path in the code (not in comments) of each non-test file, resolved to the
//! file of the longest module path that exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every crate of the workspace with its source root.
const CRATES: &[&str] = &["src", "crates/games/src", "crates/client/src"];

/// The most lines a source file may have.
const MAX_LINES: usize = 1000;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The crate's source files outside test folders, by module path.
fn source_files(root: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut found = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|name| name != "tests") {
                    folders.push(path);
                }
                continue;
            }
            // The binary's entry point reaches the library by its crate name only.
            if path.extension().is_none_or(|extension| extension != "rs")
                || path.file_name().is_some_and(|name| name == "main.rs")
            {
                continue;
            }
            let relative = path.strip_prefix(root).unwrap().with_extension("");
            let mut segments: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if matches!(segments.last().map(String::as_str), Some("mod" | "lib")) {
                segments.pop();
            }
            if segments.first().is_some_and(|first| first == "bin") {
                continue;
            }
            found.insert(segments, path);
        }
    }
    found
}

/// The code of a file without its comments and its `#[cfg(test)]` module.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a `use` tree, e.g. `a::{b, c::{d, e}}` gives `a::b`, `a::c::d`, `a::c::e`.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    // `x as y` names x: the alias goes, then the spaces.
    let mut words = tree.split_whitespace().peekable();
    let mut kept = Vec::new();
    while let Some(word) = words.next() {
        if word == "as" {
            let alias = words.next().unwrap_or_default();
            kept.push(alias.trim_start_matches(is_ident).to_owned());
        } else {
            kept.push(word.to_owned());
        }
    }
    let tree: String = kept.concat();
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let mut depth = 0;
        let mut start = 0;
        let mut parts = Vec::new();
        for (at, c) in tree.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&tree[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        parts.push(&tree[start..]);
        for part in parts.into_iter().filter(|part| !part.is_empty()) {
            match part.find('{') {
                Some(open) => {
                    let mut path = prefix.to_vec();
                    path.extend(
                        part[..open]
                            .split("::")
                            .filter(|s| !s.is_empty())
                            .map(str::to_owned),
                    );
                    walk(&path, &part[open + 1..part.len() - 1], out);
                }
                None => {
                    let mut path = prefix.to_vec();
                    path.extend(part.split("::").map(str::to_owned));
                    out.push(path);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&[], &tree, &mut out);
    out
}

/// The module paths a file's code names: its `use` trees and its inline paths. A `pub use`
/// only passes names on and names nothing the file needs.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut inline = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let reexport = before.trim_end().ends_with("pub") || before.ends_with("pub(crate) ");
        let glued = before.chars().last().is_some_and(is_ident);
        let Some(end) = rest[at..].find(';').map(|end| at + end) else {
            break;
        };
        if glued || rest[at..end].contains('"') {
            inline.push_str(&rest[..at + 4]);
            rest = &rest[at + 4..];
            continue;
        }
        inline.push_str(before);
        if !reexport {
            paths.extend(expand_use(&rest[at + 4..end]));
        }
        rest = &rest[end..];
    }
    inline.push_str(rest);
    for anchor in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = inline[from..].find(anchor) {
            let at = from + found;
            from = at + anchor.len();
            if inline[..at].chars().last().is_some_and(is_ident) {
                continue;
            }
            let path: String = inline[at..]
                .chars()
                .take_while(|&c| is_ident(c) || c == ':')
                .collect();
            paths.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    paths
}

/// The module a path named in the module `here` leads to, if it is one of the crate's: the
/// longest module path it names. A name passed on by a `pub use` leads to the module that
/// passes it on, as a reader sees it: import from the file that defines a name to keep a
/// facade out of one's circles.
fn resolve(
    modules: &BTreeSet<Vec<String>>,
    here: &[String],
    path: &[String],
) -> Option<Vec<String>> {
    let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (here.to_vec(), &path[1..]),
        Some("super") => {
            // `super` of `a/b.rs` and of `a/b/mod.rs` is `a`.
            let mut base = here.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            (base, rest)
        }
        // A path relative to the module: its child modules.
        _ => (here.to_vec(), path),
    };
    for segment in rest {
        base.push(segment.clone());
        if !modules.contains(&base) {
            base.pop();
            break;
        }
    }
    // The crate root only declares the modules and passes names on.
    (modules.contains(&base) && !base.is_empty()).then_some(base)
}

/// The strongly connected groups of more than one file (Tarjan).
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        found: Vec<Vec<Vec<String>>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a Vec<String>) {
            let number = self.index.len();
            self.index.insert(node, number);
            self.low.insert(node, number);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flatten() {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut group = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    group.push(top.clone());
                    if top == node {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !walk.index.contains_key(node) {
            walk.visit(node);
        }
    }
    walk.found
}

/// The imports between the files of the crate at `root`: a `pub use` passes names on and
/// is none.
fn imports(root: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = source_files(root);
    let modules: BTreeSet<Vec<String>> = files.keys().cloned().collect();
    files
        .iter()
        .map(|(module, file)| {
            let code = code_of(&std::fs::read_to_string(file).unwrap());
            let targets = named_paths(&code)
                .iter()
                .filter_map(|path| resolve(&modules, module, path))
                .filter(|target| target != module)
                .collect();
            (module.clone(), targets)
        })
        .collect()
}

fn show(module: &[String]) -> String {
    if module.is_empty() {
        "(crate root)".to_owned()
    } else {
        module.join("::")
    }
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let mut report = Vec::new();
    for root in CRATES {
        let edges = imports(&workspace().join(root));
        for circle in circles(&edges) {
            let mut lines = vec![format!("a circle in {root}:")];
            for module in &circle {
                let uses: Vec<String> = edges[module]
                    .iter()
                    .filter(|target| circle.contains(target))
                    .map(|target| show(target))
                    .collect();
                lines.push(format!("  {} uses {}", show(module), uses.join(", ")));
            }
            report.push(lines.join("\n"));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn the_reader_finds_imports_that_are_there() {
    // The detector itself: a known edge of each kind is seen.
    let edges = imports(&workspace().join("crates/games/src"));
    let module = |path: &str| path.split("::").map(str::to_owned).collect::<Vec<_>>();
    assert!(edges[&module("erased")].contains(&module("engine")));
    assert!(edges[&module("take_back")].contains(&module("server_events")));
    let mut cyclic = edges.clone();
    cyclic
        .get_mut(&module("engine"))
        .unwrap()
        .insert(module("erased"));
    assert!(!circles(&cyclic).is_empty());
    assert_eq!(
        expand_use("a::{b, c::{d, e as f}}"),
        vec![module("a::b"), module("a::c::d"), module("a::c::e")]
    );
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let mut long = Vec::new();
    for root in CRATES {
        for file in source_files(&workspace().join(root)).values() {
            let lines = std::fs::read_to_string(file).unwrap().lines().count();
            if lines > MAX_LINES {
                long.push(format!(
                    "{} has {lines} lines",
                    file.strip_prefix(workspace()).unwrap().display()
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these by what they hold (at most {MAX_LINES} lines a file):\n{}",
        long.join("\n")
    );
}
