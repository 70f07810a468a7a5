#!/usr/bin/env python3
"""Keep the crate root's file map true to the sources.

`src/lib.rs` carries, between `<!-- file-map:start -->` and
`<!-- file-map:end -->`, one table row per file of src/: its path, the first
sentence of its `//!` docs, and every public item it defines (`pub fn`,
`struct`, `enum`, `trait`, `type`, `const`, `static`; methods as
`Type::{a, b}`). The rows are made from the sources, so they cannot drift.

Usage: python3 scripts/module-map.py --check   (CI: exit 1 if out of date)
       python3 scripts/module-map.py --write   (rewrite the rows in lib.rs)
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
LIB = SRC / "lib.rs"
START = "//! <!-- file-map:start -->"
END = "//! <!-- file-map:end -->"

PUB_ITEM = re.compile(
    r"^(\s*)pub\s+(?:const\s+|async\s+|unsafe\s+)*(fn|struct|enum|trait|type|const|static)\s+(\w+)")
IMPL = re.compile(r"^impl(?:<[^{]*?>)?\s+(?:[\w:<>, ']+\s+for\s+)?([\w]+)")


def test_files():
    """Files that are `#[cfg(test)] mod x;` modules."""
    out = set()
    for f in SRC.rglob("*.rs"):
        text = f.read_text()
        for child in re.findall(r"#\[cfg\(test\)\]\s*mod\s+(\w+)\s*;", text):
            base = f.parent if f.name in ("mod.rs", "lib.rs") else f.with_suffix("")
            out.add(base / f"{child}.rs")
    return out


def strip_test_blocks(lines):
    """Drops `#[cfg(test)]` items with a braced body."""
    out = []
    skipping = 0
    pending = False
    for line in lines:
        if skipping:
            skipping += line.count("{") - line.count("}")
            continue
        if line.strip() == "#[cfg(test)]":
            pending = True
            continue
        if pending:
            pending = False
            if "{" in line:
                skipping = line.count("{") - line.count("}")
                continue
        out.append(line)
    return out


def first_sentence(text):
    docs = []
    for line in text.splitlines():
        if line.startswith("//!"):
            body = line[3:].strip()
            if not body and docs:
                break
            if body:
                docs.append(body)
        elif docs or line.strip():
            break
    sentence = " ".join(docs)
    # Links written for the file's own scope may not resolve at the root.
    sentence = re.sub(r"\[(`[^`]*`)\]\([^)]*\)", r"\1", sentence)
    sentence = re.sub(r"\[(`[^`]*`)\]", r"\1", sentence)
    sentence = re.sub(r"\[([^\]`]*)\]\([^)]*\)", r"\1", sentence)
    match = re.search(r"(.+?[.])(\s|$)", sentence)
    sentence = match.group(1) if match else sentence
    sentence = sentence.rstrip(":;")
    if len(sentence) > 110:
        sentence = sentence[:107].rsplit(" ", 1)[0] + " …"
    return sentence.replace("|", "\\|")


def items(text):
    free, methods = [], {}
    impl_type = None
    for line in strip_test_blocks(text.splitlines()):
        if line.startswith("impl"):
            m = IMPL.match(line)
            impl_type = m.group(1) if m else None
            continue
        if line.startswith("}"):
            impl_type = None
            continue
        m = PUB_ITEM.match(line)
        if not m:
            continue
        indent, kind, name = m.groups()
        if impl_type and indent:
            if kind == "fn" or kind == "const":
                methods.setdefault(impl_type, []).append(name)
        elif not indent:
            free.append(name)
    parts = [f"`{n}`" for n in free]
    for owner, names in methods.items():
        parts.append(f"`{owner}::{{{', '.join(names)}}}`" if len(names) > 1
                     else f"`{owner}::{names[0]}`")
    return ", ".join(parts) or "—"


def rows():
    skip = test_files()
    out = ["//! | file | what it holds | public items |", "//! |---|---|---|"]
    for f in sorted(SRC.rglob("*.rs")):
        if f in skip:
            continue
        text = f.read_text()
        rel = f.relative_to(ROOT)
        out.append(f"//! | `{rel}` | {first_sentence(text)} | {items(text)} |")
    return out


def main(argv):
    text = LIB.read_text()
    if START not in text or END not in text:
        print(f"{LIB}: markers {START!r} and {END!r} not found")
        return 1
    head, rest = text.split(START, 1)
    old, tail = rest.split(END, 1)
    new = "\n" + "\n".join(rows()) + "\n"
    if "--write" in argv:
        LIB.write_text(head + START + new + END + tail)
        return 0
    if old != new:
        print("src/lib.rs: the file map is out of date; run "
              "python3 scripts/module-map.py --write")
        return 1
    print("the file map in src/lib.rs is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
