#!/usr/bin/env python3
"""Lists struct and fn declarations that two .wgsl files both spell out.

A struct or helper used by two shaders belongs in a module (*.inc.wgsl, docs/gpu.md
"Shared WGSL: modules"); this finds the copies. Declarations are compared after dropping
comments and collapsing whitespace, so a reformatted copy still counts. `main` entry
points are skipped, and so is `element_count`, the hook by which a shader tells
per_element.inc.wgsl its size (often the same one line, `return p.n;`). Exit status 1 when there is a copy (the ctest `wgsl_no_duplicates`).

  scripts/wgsl_duplicates.py [ROOT]    # ROOT defaults to the repository
"""
import collections
import pathlib
import re
import sys

# Declared by each shader for a module (or the API) to call: alike by design.
HOOKS = {"main", "element_count"}


def declarations(text):
    """(kind, name, normalized text) of each top-level struct/fn in WGSL source."""
    text = re.sub(r"//[^\n]*", "", text)
    for m in re.finditer(r"\b(struct|fn)\s+(\w+)[^{;]*\{", text):
        i, depth = m.end(), 1
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield m.group(1), m.group(2), re.sub(r"\s+", " ", text[m.start():i])


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    seen = collections.defaultdict(list)
    for path in sorted((root / "src").rglob("*.wgsl")):
        for kind, name, body in declarations(path.read_text()):
            if name not in HOOKS:
                seen[(kind, name, body)].append(str(path.relative_to(root)))
    copies = 0
    for (kind, name, _), files in sorted(seen.items()):
        if len(files) > 1:
            copies += len(files) - 1
            print(f"{kind} {name}: declared alike in {', '.join(files)}")
    print(f"{copies} duplicate declaration(s)")
    return 1 if copies else 0


if __name__ == "__main__":
    sys.exit(main())
