"""The floor for template linting: walk the same folder, read every file and split it into
tokens with one regex per format, in plain Python - I/O plus tokenizing, no model, no rules.

No linter written in Python can beat this on the same files; `advisor lint`'s time divided by
this one says what advisor's reading, mapping and rules cost on top.

    python benchmarks/floor.py FOLDER [SUFFIX ...]     # prints files and tokens seen

The formats `advisor lint` reads, each split the cheapest way that still touches its every byte:
`key = value` lines (.vmx, HCL: Packer's .pkr.hcl and Terraform's .tf), `"key":` members (Packer's
JSON) and element names (OVF's XML).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator

# `key = "value"` (.vmx) and `key = value` (HCL): enough to touch every line's bytes once.
TOKEN = re.compile(rb'^[ \t]*([A-Za-z0-9_.:"\-\[\]]+)[ \t]*=[ \t]*(.*?)[ \t]*\r?$', re.MULTILINE)
JSON_MEMBER = re.compile(rb'"((?:[^"\\]|\\.)*)"[ \t\r\n]*:')
XML_ELEMENT = re.compile(rb"<([A-Za-z_][\w:.\-]*)")
SPLITTERS = ((".json", JSON_MEMBER), (".ovf", XML_ELEMENT))  # by suffix; any other file: TOKEN
DEFAULT_SUFFIXES = (".vmx", ".tf")
# What `advisor lint` reads and this floors: the shared corpus's templates.
TEMPLATE_SUFFIXES = (".vmx", ".ovf", ".json", ".hcl", ".tf")


def splitter(name: str) -> re.Pattern[bytes]:
    return next((regex for suffix, regex in SPLITTERS if name.endswith(suffix)), TOKEN)


def split_files(folder: str, suffixes: tuple[str, ...]) -> Iterator[tuple[str, list]]:
    """Each file's name and tokens, in the order `advisor lint` walks the folder."""
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(suffixes):
                continue
            with open(os.path.join(root, name), "rb") as handle:
                data = handle.read()
            yield name, splitter(name).findall(data)


def scan(folder: str, suffixes: tuple[str, ...]) -> tuple[int, int]:
    files = tokens = 0
    for _, found in split_files(folder, suffixes):
        tokens += len(found)
        files += 1
    return files, tokens


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    suffixes = tuple(argv[1:]) or DEFAULT_SUFFIXES
    files, tokens = scan(argv[0], suffixes)
    print(f"{files} files, {tokens} tokens")
    return 0 if files else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
