// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// Two namespaces joined by a veth pair, the test's daemons and subscribers, torn down together.
///
///     A (pathd runs here)                      B (the "router")
///     vA 198.51.100.2/24  <──── veth ────>   vB 198.51.100.1/24
///     default via 198.51.100.1
///
/// Tests get one through `withVethTopology`, which tears it down even when the body throws.
final class VethTopology {
    static let routerAddress = "198.51.100.1"

    let a: NetworkNamespace
    let b: NetworkNamespace
    let directory: TemporaryDirectory
    private var daemons: [DaemonProcess] = []
    private var subscribers: [Subscriber] = []

    /// The socket path the test's daemons listen on unless told otherwise.
    var socketPath: String { directory.path("pathd.sock") }

    /// Where the next daemon's stderr goes (created by `launchDaemon`).
    var nextStderrPath: String { directory.path("pathd-\(daemons.count).stderr") }

    fileprivate init(a: NetworkNamespace, b: NetworkNamespace, directory: TemporaryDirectory) throws {
        self.a = a
        self.b = b
        self.directory = directory
        try a.ip("link", "set", "lo", "up")
        try b.ip("link", "set", "lo", "up")
        try a.ip("link", "add", "vA", "type", "veth", "peer", "name", "vB", "netns", b.name)
        try a.ip("address", "add", "198.51.100.2/24", "dev", "vA")
        try b.ip("address", "add", "\(Self.routerAddress)/24", "dev", "vB")
        try a.ip("link", "set", "vA", "up")
        try b.ip("link", "set", "vB", "up")
        try addDefaultRoute()
        // The kernel sets vA's operstate (and IFF_RUNNING) through linkwatch, up to about
        // a second late when other links changed just before (the tests running beside
        // this one): a program started at once could find vA without carrier, offline.
        try waitUntil("vA in \(a.name) is operationally up") {
            try a.ip("-o", "link", "show", "vA").contains(" state UP ")
        }
    }

    func addDefaultRoute() throws {
        try a.ip("route", "add", "default", "via", Self.routerAddress)
    }

    func deleteDefaultRoute() throws {
        try a.ip("route", "del", "default")
    }

    var hasDefaultRoute: Bool {
        get throws { !(try a.ip("-4", "route", "show", "default").isEmpty) }
    }

    /// Starts pathd in namespace A and waits until it accepts connections.
    @discardableResult
    func startDaemon(socketPath: String? = nil, arguments: [String] = [],
                     launcher: [String] = [], pathd: URL? = nil,
                     environment: [String: String] = [:]) throws -> DaemonProcess {
        let daemon = try launchDaemon(socketPath: socketPath, arguments: arguments, launcher: launcher, pathd: pathd,
                                      environment: environment)
        try daemon.waitUntilListening()
        return daemon
    }

    /// Starts pathd in namespace A without waiting: for a start that is expected to fail.
    /// `launcher` runs before pathd (it must exec it); `pathd` is the built one unless given.
    /// The machine's resolver configuration is not the test's: unless `arguments` name a
    /// file of their own (`--resolv-conf`), pathd reads an empty one in the test's
    /// directory, so that `supportsDNS` is false whatever /etc/resolv.conf says here.
    func launchDaemon(socketPath: String? = nil, arguments: [String] = [],
                      launcher: [String] = [], pathd: URL? = nil,
                      environment: [String: String] = [:]) throws -> DaemonProcess {
        var arguments = arguments
        if !arguments.contains(where: { $0 == "--resolv-conf" || $0.hasPrefix("--resolv-conf=") }) {
            let noNameserver = directory.path("no-nameserver.conf")
            try "# the test's: no nameserver\n".write(toFile: noNameserver, atomically: true, encoding: .utf8)
            arguments += ["--resolv-conf", noNameserver]
        }
        let daemon = try DaemonProcess(
            in: a,
            socketPath: socketPath ?? self.socketPath,
            stderrPath: nextStderrPath,
            arguments: arguments,
            launcher: launcher,
            pathd: pathd,
            environment: environment
        )
        daemons.append(daemon)
        return daemon
    }

    /// Lets every user reach the sockets in the test's directory (mkdtemp makes it 0700).
    func openDirectoryToOthers() throws {
        try directory.openToOthers()
    }

    func subscribe(socketPath: String? = nil, request: String = "{\"op\":\"subscribe\"}") throws -> Subscriber {
        let subscriber = try Subscriber(socketPath: socketPath ?? self.socketPath, request: request)
        subscribers.append(subscriber)
        return subscriber
    }

    /// Subscribers first, then daemons (SIGTERM), then the namespaces and the directory.
    /// Never throws: each failure is recorded as an issue and the rest is still torn down.
    fileprivate func tearDown() {
        subscribers.forEach { $0.close() }
        for daemon in daemons {
            teardown("stop pathd") { try daemon.terminate() }
        }
        teardown("remove namespace \(a.name)") { try a.remove() }
        teardown("remove namespace \(b.name)") { try b.remove() }
        teardown("remove \(directory.url.path)") { try directory.remove() }
    }
}

/// Builds the topology, runs `body`, and tears everything down whether `body` returns or throws.
func withVethTopology<Result>(_ body: (VethTopology) throws -> Result) throws -> Result {
    let directory = try TemporaryDirectory()
    // A namespace made before a later setup step fails is removed by NetworkNamespace.deinit.
    let topology: VethTopology
    do {
        topology = try VethTopology(a: NetworkNamespace(), b: NetworkNamespace(), directory: directory)
    } catch {
        try directory.remove()
        throw error
    }
    defer { topology.tearDown() }
    return try body(topology)
}
