#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages pathd needs to build, test and lint.
# Idempotent: prints nothing and changes nothing when everything is present.
set -euo pipefail

packages=(
    libnl-3-dev        # libnl-3.0 (netlink sockets)
    libnl-route-3-dev  # pathd-decode-bench only: libnl-route's objects against pathd's decoders
    libsystemd-dev     # sd_notify, sd_listen_fds
    libcurl4-openssl-dev  # pathd-probe's HTTP(S) client (the only program linking it)
    pkg-config         # SwiftPM resolves the C module's flags through it
    iproute2           # ip netns / ip link for the kernel tests
    mandoc             # man page lint
    python3            # scripts/test/*.py, run by the kernel tests
    procps             # sysctl, with which the kernel tests slow down IPv6 DAD
    strace             # the kernel tests show pathd never sets its socket's mode through the path
    util-linux         # setpriv: the kernel tests run hostile clients as nobody
    socat              # the README's socket example
    dpkg-dev           # make deb: dpkg-buildpackage, dpkg-shlibdeps
    debhelper          # make deb: packaging/debian/rules (dh, compat 13)
    lintian            # make deb checks the package
    rsync              # make deb copies the tree to build/pathd incrementally
    binutils           # readelf: the package test checks for a RUNPATH
    zsh                # the completion tests parse _pathctl and _pathd
    fish               # the completion tests complete with pathctl.fish
    python3-seccomp    # scripts/test/sandbox-exec.py: the unit's system call filter
    prometheus                 # the metrics test scrapes with it; promtool checks metrics and rules
    prometheus-node-exporter   # the metrics test reads pathd's textfile through it
    python3-prometheus-client  # the metrics test parses pathctl metrics as OpenMetrics
    libglib2.0-dev     # gio-module/: the GIO network-monitor module and gio-watch (GIO 2.74); pathd-gio-module's Build-Depends
    libjson-glib-dev   # gio-module/: the module parses pathd's lines with json-glib
    valgrind           # make -C gio-module check, and the kernel test running gio-watch under it
    g++                # make interop: Tests/Interop/qt-reachability.cpp
    qt6-base-dev       # its Qt 6 headers; pulls libqt6network6, whose glib plug-in the test loads (about 15 s, 33 packages)
    linux-perf         # make bench: `perf trace` splits pathd's part of a change into its stages
    systemd-container  # systemd-nspawn: Tests/SystemdTests boot systemd with the packages installed
    python3-gi         # Tests/SystemdTests: an unchanged GLib program (Gio.NetworkMonitor) in the container
    dnsmasq-base       # the hints kernel tests: the router's DHCP server, sending ANDROID_METERED as a phone does
    isc-dhcp-client    # the hints kernel tests: dhclient running pathd's exit hook
    dhcpcd-base        # the hints kernel tests: dhcpcd (Debian 13's client) running pathd's hook
    radvd              # the hints kernel tests: router advertisements with a DNS search list
)

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$package")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps: missing packages, run as root: apt-get install ${missing[*]}" >&2
    exit 1
fi

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
