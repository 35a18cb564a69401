#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs Benchmarks/bench.py against a pathd binary; every namespace the run creates is
# named pathd-bench-<this shell's pid>-… and removed on exit, even if bench.py is killed.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "bench: needs root (network namespaces)" >&2
    exit 1
fi
here="$(cd "$(dirname "$0")" && pwd)"
pathd="${1:?usage: run.sh PATH-TO-PATHD [bench.py options]}"
shift
prefix="pathd-bench-$$"
python="/usr/bin/python3"
[ -x "$python" ] || python="python3"

cleanup() {
    # shellcheck disable=SC2046 # one name a word
    "$python" "$here/../scripts/test/netns.py" remove $(ip netns list | awk '{print $1}' | grep "^$prefix-" || true) \
        2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$python" "$here/bench.py" --pathd "$pathd" --prefix "$prefix" "$@"
