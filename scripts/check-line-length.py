#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a Swift line of the package is longer than 120 columns.

The limit holds for every Swift file under Sources/, Tests/, Examples/ and Benchmarks/:
a line that fits is read without scrolling, side by side in a review, and in a diff. A
column is a character (Unicode code point), not a byte.

Usage: check-line-length.py [DIRECTORY...]   (default: the four above, from the repository root)
"""

import os
import sys

LIMIT = 120
DIRECTORIES = ["Sources", "Tests", "Examples", "Benchmarks"]


def swift_files(directory):
    for root, directories, files in os.walk(directory):
        directories[:] = sorted(name for name in directories if not name.startswith("."))
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(root, name)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    found = []
    for directory in sys.argv[1:] or DIRECTORIES:
        for path in swift_files(directory):
            with open(path, encoding="utf-8") as file:
                for number, line in enumerate(file, 1):
                    length = len(line.rstrip("\n"))
                    if length > LIMIT:
                        found.append(f"{path}:{number}: {length} columns")
    for line in found:
        print(f"check-line-length: {line}", file=sys.stderr)
    if found:
        print(f"check-line-length: {len(found)} Swift lines are longer than {LIMIT} columns; wrap them",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
