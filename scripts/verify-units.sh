#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs `systemd-analyze verify` on the given unit files.
# verify refuses a unit whose Exec*= binary does not exist, and lint must not
# need an installed pathd: the units are checked as copies whose commands under
# /usr/local/bin (pathd, pathctl) are true(1). --man=no because the pages are not installed yet; `make lint` checks
# them with mandoc instead.
set -euo pipefail

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

stand_in=$(command -v true)
copies=()
for unit in "$@"; do
    copy="$work/$(basename "$unit")"
    sed -E "s|^(Exec[A-Za-z]*=)/usr/local/bin/[a-z-]+|\1$stand_in|" "$unit" > "$copy"
    copies+=("$copy")
done

systemd-analyze verify --man=no "${copies[@]}"
