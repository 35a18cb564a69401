#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when pathd's own code makes an open enumeration's value from a string.

An `OpenEnumeration` (PathModel) read leniently, `init(rawValue:)`, keeps a name this
version does not know as `unrecognized`: that is for reading what a newer pathd wrote
(docs/PROTOCOL.md, "Version rule"), and pathd's clients decode such a value as "sent by
a newer pathd". So only the decoders of PathProtocol read values that way; every other
source names a known case (`.noRoute`), or reads a name strictly (`init?(known:)`),
and a value the daemon sends is always one its own library knows.

The open enumerations are found by their declaration (`enum X: OpenEnumeration`).

Usage: check-known-values.py
"""

import os
import re
import sys

# The decoders, and the protocol's own definition of the lenient reading.
ALLOWED = ("Sources/PathProtocol/", "Sources/PathModel/OpenEnumeration.swift")


def swift_files():
    for root, directories, files in os.walk("Sources"):
        directories.sort()
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(root, name)


def main():
    sources = {path: open(path, encoding="utf-8").read() for path in swift_files()}
    declared = re.compile(r"\b(?:enum|struct)\s+(\w+)\s*:[^{]*\bOpenEnumeration\b")
    names = sorted({name for text in sources.values() for name in declared.findall(text)})
    if not names:
        print("check-known-values: no OpenEnumeration declaration found", file=sys.stderr)
        return 1
    lenient = re.compile(r"\b(?:%s)(?:\.init)?\(rawValue:" % "|".join(names))
    # `.unrecognized(name)` made, not matched (`case .unrecognized(let name)`, `(_, …)`).
    made = re.compile(r"\.unrecognized\(\s*(?!let\b|var\b|_\s*[,)])")
    found = []
    for path, text in sources.items():
        if path.startswith(ALLOWED):
            continue
        for number, line in enumerate(text.split("\n"), 1):
            code = line.split("//", 1)[0]
            if lenient.search(code) or made.search(code):
                found.append(f"{path}:{number}: {line.strip()}")
    for line in found:
        print(f"check-known-values: {line}", file=sys.stderr)
    if found:
        print("check-known-values: outside PathProtocol's decoders, name a known case or read strictly with "
              "init?(known:); a value pathd sends must be one its library knows (scripts/check-known-values.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
