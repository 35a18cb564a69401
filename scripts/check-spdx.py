#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a source file of the repository does not name its licence.

Every Swift, C, C++, Python and shell file under Sources/, Tests/, Examples/,
Benchmarks/, Fuzz/, scripts/ and gio-module/ (and Package.swift and .ci/run) carries an
`SPDX-License-Identifier: Apache-2.0` line among its first lines (after a shebang or
the swift-tools-version line), so that a file copied out of the tree still says under
which licence (LICENSE) it may be used. A symbolic link is skipped: its target is a
file of the tree, checked where it lives.

Usage: check-spdx.py
"""

import os
import sys

TAG = "SPDX-License-Identifier: Apache-2.0"
ROOTS = ["Sources", "Tests", "Examples", "Benchmarks", "Fuzz", "scripts", "gio-module"]
EXTENSIONS = (".swift", ".c", ".h", ".cpp", ".py", ".sh")


def source_files():
    yield "Package.swift"
    yield ".ci/run"
    for top in ROOTS:
        for root, directories, files in os.walk(top):
            directories[:] = sorted(name for name in directories
                                    if not name.startswith(".") and name != "build")
            for name in sorted(files):
                path = os.path.join(root, name)
                if name.endswith(EXTENSIONS) and not os.path.islink(path):
                    yield path


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    missing = []
    for path in source_files():
        with open(path, encoding="utf-8") as file:
            head = [file.readline() for _ in range(3)]
        if not any(TAG in line for line in head):
            missing.append(path)
    for path in missing:
        print(f"check-spdx: {path}: no \"{TAG}\" in its first three lines", file=sys.stderr)
    if missing:
        print(f"check-spdx: {len(missing)} files do not name their licence", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
