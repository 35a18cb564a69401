#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a target other than a test target writes `@testable import`.

A whole-package release build (`swift build -c release`, what a packager or a SwiftPM
user types first) compiles no module for testing, so such an import breaks it with
"module 'X' was not compiled for testing"; debug builds and the per-product release
builds of `make build` hide it. What a support target needs from a module is `package`
access (SE-0386). The targets and their sources come from `swift package describe`.

Usage: check-testable-imports.py [SWIFT]
"""

import json
import os
import subprocess
import sys


def main():
    swift = sys.argv[1] if len(sys.argv) > 1 else "swift"
    description = json.loads(subprocess.run([swift, "package", "describe", "--type", "json"], check=True,
                                            stdout=subprocess.PIPE, text=True).stdout)
    found = []
    for target in description["targets"]:
        if target["type"] == "test":
            continue
        for source in target.get("sources", []):
            path = os.path.join(target["path"], source)
            with open(path, encoding="utf-8") as file:
                for number, line in enumerate(file, 1):
                    if line.lstrip().startswith("@testable import"):
                        found.append(f"{path}:{number}: {line.strip()} (in {target['type']} target {target['name']})")
    for line in found:
        print(f"check-testable-imports: {line}", file=sys.stderr)
    if found:
        print("check-testable-imports: only test targets may use @testable: `swift build -c release` fails; "
              "use `package` access", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
