// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// gio-module/build/gio-watch — an unchanged GLib program asking `g_network_monitor_get_default()` —
/// running in a namespace with pathd's GIO module on `GIO_EXTRA_MODULES`. It prints one JSON
/// object a line (`initial`, `changed`, `can-reach`, `state`); see gio-module/README.md.
final class GIOWatch {
    let process: ProgramProcess

    /// Starts gio-watch in `namespace` with `PATHD_SOCKET=socketPath` (so no system socket
    /// interferes), and no system bus: GLib's NetworkManager backend must not answer in
    /// pathd's place. `launcher` (valgrind, say) runs before gio-watch.
    init(in namespace: NetworkNamespace, socketPath: String, stderrPath: String, launcher: [String] = [],
         environment extra: [String: String] = [:]) throws {
        let command = namespace.execArguments(launcher + [GIOModuleBuild.watchExecutable])
        var environment = [
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "GIO_EXTRA_MODULES": GIOModuleBuild.moduleDirectory,
            "PATHD_SOCKET": socketPath,
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket",
            "G_MESSAGES_DEBUG": "all",
        ]
        environment.merge(extra) { _, added in added }
        if let home = ProcessInfo.processInfo.environment["HOME"] { environment["HOME"] = home }
        process = try ProgramProcess(command.executable, command.arguments, environment: environment,
                                     stderrPath: stderrPath)
    }

    /// The next line of `event` (consuming the ones before it).
    @discardableResult
    func next(_ event: String, _ description: String, timeout: Duration = .seconds(10)) throws -> [String: Any] {
        try process.waitForObject(description, timeout: timeout) { $0["event"] as? String == event }
    }

    /// The next `changed` line, whatever it says: a test that expects one answer gets the
    /// next event and checks it, so a spurious event in between fails it.
    @discardableResult
    func nextChange(_ description: String, timeout: Duration = .seconds(10)) throws -> [String: Any] {
        try process.waitForObject(description,
                                  timeout: timeout) { ["changed", "initial"].contains($0["event"] as? String) }
    }

    /// Asks `can-reach HOST PORT` (or `can-reach-async`) and returns the answer.
    func canReach(_ host: String, port: Int = 443, async: Bool,
                  timeout: Duration = .seconds(15)) throws -> [String: Any] {
        try process.send("\(async ? "can-reach-async" : "can-reach") \(host) \(port)")
        return try process.waitForObject("can-reach \(host)", timeout: timeout) {
            $0["event"] as? String == "can-reach" && $0["host"] as? String == host
        }
    }

    /// The `state` command's answer: what the monitor says now.
    func state() throws -> [String: Any] {
        try process.send("state")
        return try next("state", "the state")
    }

    /// Closes its input and waits for it to exit by itself.
    func finish(timeout: Duration = .seconds(10)) throws -> Termination {
        process.closeInput()
        return try process.waitForExit(timeout: timeout)
    }

    func kill() throws { try process.kill() }
}

/// The monitor's answer in a gio-watch line, for comparing with what a test expects.
struct MonitorAnswer: Equatable, CustomStringConvertible {
    var available: Bool
    var metered = false
    var connectivity = "full"

    init(available: Bool, metered: Bool = false, connectivity: String? = nil) {
        self.available = available
        self.metered = metered
        self.connectivity = connectivity ?? (available ? "full" : "local")
    }

    init?(_ line: [String: Any]) {
        guard let available = line["available"] as? Bool, let metered = line["metered"] as? Bool,
              let connectivity = line["connectivity"] as? String else { return nil }
        self.init(available: available, metered: metered, connectivity: connectivity)
    }

    var description: String { "available \(available), metered \(metered), connectivity \(connectivity)" }
}

/// Whether `server` has accepted a connection from `client`, both inside `namespace`:
/// `hasAccepted` for sockets in another network namespace (Unix sockets belong to
/// one, and ss(8) lists only its own). A client socket's peer is a server's socket.
func hasAccepted(server: pid_t, client: pid_t, in namespace: NetworkNamespace) throws -> Bool {
    // "u_str ESTAB 0 0 * 118070 * 118071 users:(("gio-watch",pid=7,fd=5))": local inode, then the peer's.
    let rows = try namespace.run("ss", "--unix", "--numeric", "--no-header", "--processes")
        .split(separator: "\n")
        .map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        .filter { $0.count >= 9 }
    func owned(by pid: pid_t) -> [[String]] {
        rows.filter { $0[8...].joined(separator: " ").contains("pid=\(pid),") }
    }
    let serverInodes = Set(owned(by: server).map { $0[5] })
    return owned(by: client).contains { serverInodes.contains($0[7]) }
}
