#!/usr/bin/env python3
"""The library exports, the version map lists and the header declares the same names.

Usage: check_symbols.py LIBRARY MAP HEADER [HEADER...]

- LIBRARY: the dynamic symbols defined in it (`nm -D --defined-only`; $NM overrides nm).
  Every one must start with qy_, except the version nodes of MAP (type A symbols).
- MAP: the names in the `global:` parts of the linker version script.
- HEADER: the function names declared with QY_API.

Prints each difference and exits 1 when the three sets differ or something other than a
qy_ function is exported. Python 3 standard library only.
"""
import os
import re
import subprocess
import sys

PREFIX = "qy_"


def strip_c_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def map_names(path):
    """(version nodes, global names) of a GNU ld version script."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"#[^\n]*", " ", strip_c_comments(f.read()))
    nodes, names = set(), set()
    node_pattern = r"([A-Za-z_][\w.]*)\s*\{(.*?)\}\s*[\w.]*\s*;"
    section_pattern = r"(global|local)\s*:([^:]*?)(?=\b(?:global|local)\s*:|$)"
    for node, body in re.findall(node_pattern, text, flags=re.S):
        nodes.add(node)
        for section, entries in re.findall(section_pattern, body, flags=re.S):
            if section == "global":
                names.update(e.strip() for e in entries.split(";") if e.strip())
    return nodes, names


def header_names(path):
    """Function names declared with QY_API (preprocessor lines are skipped)."""
    with open(path, encoding="utf-8") as f:
        text = strip_c_comments(f.read())
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return set(re.findall(r"\bQY_API\b[^;{}]*?\b([A-Za-z_]\w*)\s*\(", text))


def exported_symbols(path):
    """(kind, name) of each defined dynamic symbol, without its @version suffix."""
    nm = os.environ.get("NM", "nm")
    out = subprocess.run([nm, "-D", "--defined-only", path], check=True, capture_output=True,
                         text=True).stdout
    symbols = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            symbols.add((fields[-2], fields[-1].split("@")[0]))
    return symbols


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    library, version_map, headers = argv[1], argv[2], argv[3:]
    nodes, mapped = map_names(version_map)
    declared = set().union(*(header_names(h) for h in headers))
    symbols = exported_symbols(library)
    exported = {name for kind, name in symbols if not (kind == "A" and name in nodes)}

    problems = [f"exported without the {PREFIX} prefix: {name}"
                for name in sorted(exported) if not name.startswith(PREFIX)]
    sets = {"exported by the library": exported, "listed in the version map": mapped,
            "declared in the header": declared}
    for here, names in sets.items():
        for there, others in sets.items():
            for name in sorted(names - others):
                problems.append(f"{here} but not {there}: {name}")
    if not declared:
        problems.append("no QY_API declarations found in the header")

    for problem in problems:
        print(problem)
    print(f"{len(exported)} exported, {len(mapped)} mapped, {len(declared)} declared: "
          + ("MISMATCH" if problems else "the same names"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
