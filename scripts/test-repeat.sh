#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hunts flaky tests: runs the already built tests RUNS times in a row with
# `swift test --skip-build --filter FILTER`, each run's output in LOGS/run-N.log, and
# stops at the first failing run, naming it, its log and the tests that failed.
# `make test-repeat` builds first and calls this (see the Makefile).
set -uo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 RUNS FILTER LOGS" >&2
    exit 2
fi
runs=$1
filter=$2
logs=$3
swift=${SWIFT:-swift}
case $runs in
    '' | *[!0-9]* | 0) echo "test-repeat: N must be a positive integer, not '$runs'" >&2; exit 2 ;;
esac

mkdir -p "$logs"
rm -f "$logs"/run-*.log
for run in $(seq 1 "$runs"); do
    log=$logs/run-$run.log
    started=$SECONDS
    if "$swift" test --skip-build --filter "$filter" > "$log" 2>&1; then
        # A skipped test (a package not built, a tool not installed) hunts nothing: say how many.
        skipped=$(grep -cE '^[^ ]+ Test ".*" skipped' "$log")
        echo "test-repeat: run $run of $runs passed ($((SECONDS - started)) s, $skipped skipped); $(grep -E '^(✔ )?Test run with' "$log" | tail -1)"
    else
        echo "test-repeat: run $run of $runs FAILED ($((SECONDS - started)) s); its output: $log"
        # Swift Testing marks a failed test and its issues with ✘; XCTest prints error: lines.
        grep -E '✘|: error: ' "$log" | head -40
        exit 1
    fi
done
echo "test-repeat: all $runs runs passed (filter '$filter'); logs in $logs"
