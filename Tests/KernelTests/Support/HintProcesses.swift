// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

extension DHCPServer {
    /// dnsmasq in namespace B on vB, leasing 198.51.100.50–99 (PathTestFixtures' DHCPServer).
    convenience init(in namespace: NetworkNamespace, directory: TemporaryDirectory, metered: Bool = true) throws {
        try self.init(namespace: namespace.name, interface: "vB", range: "198.51.100.50,198.51.100.99",
                      directory: directory, metered: metered)
    }
}

/// Namespace A as a host whose DHCP client runs the hooks pathd ships: a mount and UTS
/// namespace of its own (the clients set the hostname and write resolv.conf; neither
/// reaches the host), with the hooks installed where the clients read them
/// (`/etc/dhcp/dhclient-exit-hooks.d/pathd`, `/usr/lib/dhcpcd/dhcpcd-hooks/90-pathd`),
/// naming the built pathctl as `make install` names the installed one, and the test's
/// socket directory at `/run/pathd`, where pathctl looks first as root. The clients'
/// own files (leases, dhcpcd's database) go to tmpfs.
final class DHCPClientHost {
    let mounts: PrivateMounts
    private let directory: TemporaryDirectory

    init(_ topology: VethTopology) throws {
        directory = topology.directory
        mounts = try PrivateMounts(in: topology.a, stderrPath: topology.directory.path("holder.stderr"),
                                   unsharing: ["--mount", "--uts"])
        do {
            try install()
        } catch {
            teardown("stop the private mounts after a failed install") { try mounts.stop() }
            throw error
        }
    }

    /// The hook as `make install` writes it: the built pathctl instead of /usr/local/bin's.
    static func hook(_ name: String) throws -> String {
        let text = try String(contentsOfFile: Repository.path("packaging/hooks/\(name)"), encoding: .utf8)
        return text.replacingOccurrences(of: "/usr/local/bin/pathctl", with: try BuiltProduct.url("pathctl").path)
    }

    private func install() throws {
        let mount = try Command.find("mount").path
        try mounts.emptyRun()
        try mounts.run(["/bin/mkdir", "-p", "/run/pathd"])
        try mounts.run([mount, "--bind", directory.url.path, "/run/pathd"])
        for state in ["/var/lib/dhcpcd", "/var/lib/dhcp"] where FileManager.default.fileExists(atPath: state) {
            try mounts.run([mount, "-t", "tmpfs", "-o", "mode=0755", "tmpfs", state])
        }
        // Writable: the clients' scripts write /etc/resolv.conf, into the test's upper layer.
        try mounts.overlay("/etc", adding: ["dhcp/dhclient-exit-hooks.d/pathd": try Self.hook("dhclient-exit-hook")],
                           directory: directory.path("etc"))
        try mounts.overlay("/usr/lib/dhcpcd/dhcpcd-hooks", adding: ["90-pathd": try Self.hook("dhcpcd-hook")],
                           directory: directory.path("dhcpcd-hooks"))
    }

    /// Starts a DHCP client (`command`, its first word found on PATH) on vA inside.
    func start(_ command: [String], name: String) throws -> ChildProcess {
        let (executable, arguments) = mounts.execArguments([try Command.find(command[0]).path]
                                                             + command.dropFirst())
        return try ChildProcess(executable, arguments, stderrPath: directory.path("\(name).stderr"))
    }

    /// Runs a command inside and returns its output.
    @discardableResult
    func run(_ command: [String]) throws -> String {
        try mounts.run([try Command.find(command[0]).path] + command.dropFirst())
    }

    func stop() throws {
        try mounts.stop()
    }
}

/// Debian's radvd in the router's namespace, on vB: prefix 2001:db8:77::/64 and a DNS
/// search list, an advertisement every few seconds. Its log (`-d 5`) has a line for each
/// advertisement sent, and for each it failed to send.
final class RouterAdvertiser {
    private let child: ChildProcess
    private let stderrPath: String

    init(in namespace: NetworkNamespace, directory: TemporaryDirectory, searchDomains: [String]) throws {
        let config = directory.path("radvd.conf")
        try """
            interface vB {
              AdvSendAdvert on;
              MinRtrAdvInterval 3;
              MaxRtrAdvInterval 4;
              prefix 2001:db8:77::/64 { };
              DNSSL \(searchDomains.joined(separator: " ")) { AdvDNSSLLifetime 60; };
            };

            """.write(toFile: config, atomically: true, encoding: .utf8)
        stderrPath = directory.path("radvd.stderr")
        let command = namespace.execArguments([try Command.find("radvd").path, "--nodaemon", "-C", config,
                                               "-p", directory.path("radvd.pid"), "-m", "stderr", "-d", "5"])
        child = try ChildProcess(command.executable, command.arguments, stderrPath: stderrPath)
    }

    var log: String {
        get throws { try String(contentsOfFile: stderrPath, encoding: .utf8) }
    }

    func stop() throws {
        guard child.isRunning else { return }
        try child.terminate("radvd", detail: { "; its log:\n" + (try self.log) })
    }
}
