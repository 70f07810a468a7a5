#!/usr/bin/env python3
"""Fail when the files of a crate import each other in a cycle.

A file depends on another when it names an item defined there through a
`crate::`, `super::` or `self::` path (in a `use` or inline). A name that a
module re-exports (`pub use child::Item`) resolves to the file that defines
it, so a facade `mod.rs` does not tie its children together; a module's own
`mod child;` declarations are not dependencies. Test-only modules
(`#[cfg(test)] mod ... { }`) are left out: the rule is about the library.

Usage: python3 scripts/check-module-cycles.py [SRC_DIR ...]
(default: the src/ of every package in the workspace). Exit 1 on a cycle,
listing each one.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SRC = ["src", "cli/src", "sqlite/src", "postgres/src", "model/src",
               "python/src", "llm/src", "report/src", "derive/src"]

# The strict reading (the default): a path names the file it spells, even
# when that module only re-exports the item, and a module depends on the
# children it declares. A crate clean under it is clean under any looser
# reading (re-exports followed, `mod` not counted).
FOLLOW_REEXPORTS = "--follow-reexports" in sys.argv
COUNT_MOD_DECLARATIONS = "--ignore-mod" not in sys.argv

ITEM = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+|async\s+|const\s+|extern\s+\"C\"\s+)*"
    r"(?:fn|struct|enum|trait|type|const|static|union|mod|macro_rules!)\s+(\w+)",
    re.M)
USE = re.compile(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
INLINE_PATH = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")


def strip_comments_and_strings(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return text


def strip_test_modules(text):
    """Removes `#[cfg(test)]` items with a braced body."""
    out = []
    i = 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth = 0
        j = m.end() - 1
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    out.append(text[i:])
    return "".join(out)


def expand_use_tree(tree):
    """`a::{b, c::{d, e as f}}` -> [[a,b],[a,c,d],[a,c,e]]."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def parse(s, prefix):
        paths = []
        depth = 0
        start = 0
        parts = []
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0 and part.endswith("}"):
                head = [x for x in part[:brace].split("::") if x]
                paths.extend(parse(part[brace + 1:-1], prefix + head))
            else:
                segs = [x for x in part.split("::") if x]
                paths.append(prefix + segs)
        return paths

    return parse(tree, [])


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = {}  # module path tuple -> file
        for f in sorted(src.rglob("*.rs")):
            rel = f.relative_to(src).with_suffix("")
            parts = list(rel.parts)
            if parts == ["lib"] or parts == ["main"]:
                parts = []
            elif parts[-1] == "mod":
                parts = parts[:-1]
            elif len(parts) == 1 and parts[0] in ("lib", "main"):
                parts = []
            self.files[tuple(parts)] = f
        # Files that are test modules (`#[cfg(test)] mod tests;`) are left out.
        for module, f in list(self.files.items()):
            raw = strip_comments_and_strings(f.read_text())
            for child in re.findall(r"#\[cfg\(test\)\]\s*mod\s+(\w+)\s*;", raw):
                self.files.pop(tuple(list(module) + [child]), None)
        # A visibility restriction (`pub(in crate::a)`) names a module but
        # depends on nothing in it.
        self.text = {m: re.sub(r"pub\(in [^)]*\)", "pub",
                               strip_test_modules(strip_comments_and_strings(f.read_text())))
                     for m, f in self.files.items()}
        self.defined = {m: set(ITEM.findall(t)) for m, t in self.text.items()}
        self.uses = {m: self._uses(m) for m in self.files}

    def _absolute(self, module, segs):
        if not segs:
            return None
        if segs[0] == "crate":
            return segs[1:]
        base = list(module)
        i = 0
        if segs[0] == "self":
            i = 1
        while i < len(segs) and segs[i] == "super":
            if not base:
                return None
            base = base[:-1]
            i += 1
        if i == 0:
            # Edition 2018+: a bare path in a `use` names a child module or an
            # extern crate; only children matter here.
            if tuple(base + [segs[0]]) in self.files:
                return base + segs
            return None
        return base + segs[i:]

    def _uses(self, module):
        """name -> absolute path, for every `use` in the module."""
        table = {}
        for m in USE.finditer(self.text[module]):
            for segs in expand_use_tree(m.group(1)):
                absolute = self._absolute(module, segs)
                if absolute and segs[-1] not in ("*", "self"):
                    table[segs[-1]] = absolute
        return table

    def resolve(self, path, seen=None):
        """The file that defines the item an absolute path names."""
        seen = seen or set()
        key = tuple(path)
        if key in seen:
            return None
        seen.add(key)
        # Longest prefix that is a module file.
        for cut in range(len(path), -1, -1):
            module = tuple(path[:cut])
            if module in self.files:
                break
        else:
            return None
        rest = path[cut:]
        if not rest or rest[0] in ("*", "self"):
            return module
        name = rest[0]
        if name in self.defined[module] or not FOLLOW_REEXPORTS:
            return module
        target = self.uses[module].get(name)
        if target:
            return self.resolve(target + rest[1:], seen)
        return module

    def edges(self):
        graph = {m: set() for m in self.files}
        for module, text in self.text.items():
            paths = []
            for m in USE.finditer(text):
                for segs in expand_use_tree(m.group(1)):
                    paths.append(segs)
            body = USE.sub("", text)
            for m in INLINE_PATH.finditer(body):
                paths.append(m.group(1).split("::"))
            for segs in paths:
                absolute = self._absolute(module, segs)
                if absolute is None:
                    continue
                target = self.resolve(absolute)
                if target is not None and target != module:
                    graph[module].add(target)
            if COUNT_MOD_DECLARATIONS:
                for child in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M):
                    target = tuple(list(module) + [child])
                    if target in self.files:
                        graph[module].add(target)
        return graph


def cycles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main(argv):
    dirs = [(ROOT / a).resolve() for a in argv if not a.startswith("--")] or [ROOT / d for d in DEFAULT_SRC]
    failed = False
    for src in dirs:
        if not src.is_dir():
            continue
        crate = Crate(src)
        graph = crate.edges()
        for component in cycles(graph):
            failed = True
            names = sorted(str(crate.files[m].relative_to(ROOT)) for m in component)
            print(f"import cycle in {src.relative_to(ROOT)}: {', '.join(names)}")
            for m in sorted(component):
                inside = sorted(str(crate.files[t].relative_to(ROOT))
                                for t in graph[m] if t in component)
                print(f"  {crate.files[m].relative_to(ROOT)} -> {', '.join(inside)}")
    if not failed:
        print("no import cycle between files")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
