#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# By hand, as root (README, "Flatpak"): xdg-desktop-portal's NetworkMonitor answering
# from pathd's GIO module, against GLib's netlink backend. Needs xdg-desktop-portal and
# dbus (not installed by scripts/install-deps.sh: no test runs this), a release pathd
# (`make build`) and the module (`make build-gio-module`).
#
#   Tests/Interop/portal-network-monitor.sh module|netlink    (PATHD=path: another pathd build)
#
# Namespace A runs pathd (vA marked expensive) and a D-Bus session with the portal;
# namespace B is the router. Both are removed on exit.
set -euo pipefail

backend="${1:?usage: $0 module|netlink}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
pathd="${PATHD:-$root/.build/release/pathd}"
modules="$root/gio-module/build/modules"
a="pathd-portal-$$-a"
b="pathd-portal-$$-b"
directory="$(mktemp -d)"

netns="$root/scripts/test/netns.py"

cleanup() {
    "$netns" remove "$a" "$b" || true
    rm -rf "$directory"
}
trap cleanup EXIT

"$netns" add "$a" "$b"
ip -n "$a" link add vA type veth peer name vB netns "$b"
ip -n "$a" address add 198.51.100.2/24 dev vA
ip -n "$b" address add 198.51.100.1/24 dev vB
ip -n "$a" link set vA up
ip -n "$b" link set vB up
ip -n "$a" route add default via 198.51.100.1
printf '[Interface]\nName=vA\nExpensive=yes\n' > "$directory/pathd.conf"
ip netns exec "$a" "$pathd" --socket "$directory/pathd.sock" --config "$directory/pathd.conf" \
    2> "$directory/pathd.log" &
disown
for _ in $(seq 100); do [ -S "$directory/pathd.sock" ] && break; sleep 0.05; done

cat > "$directory/session.sh" <<'SESSION'
#!/usr/bin/env bash
set -u
b="$1"
call() {
    gdbus call --session -d org.freedesktop.portal.Desktop -o /org/freedesktop/portal/desktop \
        -m "org.freedesktop.portal.NetworkMonitor.$1" "${@:2}" 2>&1
}
# Polls the portal (it has no change signal a shell can wait on) for up to 2 s.
wait_available() {
    for _ in $(seq 40); do [ "$(call GetAvailable)" = "($1,)" ] && return; sleep 0.05; done
}
echo "interface version: $(gdbus call --session -d org.freedesktop.portal.Desktop -o /org/freedesktop/portal/desktop \
    -m org.freedesktop.DBus.Properties.Get org.freedesktop.portal.NetworkMonitor version)"
echo "GetStatus: $(call GetStatus)"
echo "GetAvailable $(call GetAvailable) GetMetered $(call GetMetered) GetConnectivity $(call GetConnectivity)"
echo "CanReach 203.0.113.9 80: $(call CanReach 203.0.113.9 80)"
ip -n "$b" link set vB down
wait_available false
echo "after carrier loss, GetStatus: $(call GetStatus)"
echo "after carrier loss, CanReach 203.0.113.9 80: $(call CanReach 203.0.113.9 80)"
ip -n "$b" link set vB up
wait_available true
echo "carrier back, GetStatus: $(call GetStatus)"
portal=$(pgrep -n -x xdg-desktop-por || true)
if [ -n "$portal" ] && grep -q libgiopathd.so "/proc/$portal/maps"; then
    echo "the portal process maps libgiopathd.so"
else
    echo "the portal process does not map libgiopathd.so"
fi
SESSION
chmod +x "$directory/session.sh"

case "$backend" in
    module) environment=(GIO_EXTRA_MODULES="$modules" PATHD_SOCKET="$directory/pathd.sock") ;;
    netlink) environment=(GIO_USE_NETWORK_MONITOR=netlink) ;;
    *) echo "$0: module or netlink, not $backend" >&2; exit 2 ;;
esac
# The session bus starts the portal on the first call, in this environment.
ip netns exec "$a" env "${environment[@]}" timeout 60 dbus-run-session -- "$directory/session.sh" "$b" \
    2> "$directory/session.stderr"
