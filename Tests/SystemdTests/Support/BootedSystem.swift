// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// A real systemd booted in a container over a throw-away overlay of this machine's root,
/// with the packages under test copied in, and an uplink whose carrier the test controls
/// from a peer namespace. scripts/test/booted_systemd.py makes and removes it all; a guard
/// process of its own removes it when this test runner ends, however it ends.
final class BootedSystem {
    struct State: Decodable {
        let directory: String
        let root: String
        let leader: Int32
        let namespace: String
        let peerNamespace: String
        let packages: [String]
        let uplink: String
        let peerLink: String
        let address: String
        let peerAddress: String
        let bootSeconds: Double
    }

    let state: State
    private var isStopped = false
    private let scratch: TemporaryDirectory

    static let script = Repository.path("scripts/test/booted_systemd.py")
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    /// What a run killed before its guard could clean up left behind, removed once per run,
    /// before the first container boots.
    private static let swept: Result<String, any Error> = Result {
        try Command.check(python, [script, "sweep"])
    }

    /// Boots the container with `packages` copied to /var/tmp/pathd-packages/.
    init(packages: [String]) throws {
        _ = try Self.swept.get()
        scratch = try TemporaryDirectory()
        let result = try Command.run(Self.python, [Self.script, "start", "--owner", "\(getpid())"]
                                         + packages.flatMap { ["--deb", $0] },
                                     timeout: .seconds(180))
        guard result.termination.isCleanExit else {
            throw HarnessError("booted_systemd.py start failed (\(result.termination)): "
                               + "\(result.stdout) \(result.stderr)")
        }
        state = try JSONDecoder().decode(State.self, from: Data(result.stdout.utf8))
    }

    /// The command line that runs `script` inside the container, as root, in every one of
    /// its namespaces, with an environment as bare as a unit's: nothing of the test runner's.
    func commandLine(_ script: String) -> [String] {
        ["nsenter", "-t", "\(state.leader)", "-a", "--", "/usr/bin/env", "-i",
         "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "/bin/sh", "-c", script]
    }

    /// Runs a shell `script` inside the container and returns how it ended.
    func run(_ script: String, timeout: Duration = .seconds(90)) throws -> CommandResult {
        let line = commandLine(script)
        return try Command.run(try Command.find(line[0]), Array(line.dropFirst()), timeout: timeout)
    }

    /// Runs `script` inside and returns its standard output; throws unless it exits 0.
    @discardableResult
    func check(_ script: String, timeout: Duration = .seconds(90)) throws -> String {
        let result = try run(script, timeout: timeout)
        guard result.termination.isCleanExit else {
            throw HarnessError("`\(script)` in the container: \(result.termination); stdout: \(result.stdout) "
                               + "stderr: \(result.stderr)")
        }
        return result.stdout
    }

    /// Starts a long-running `script` inside whose output the test reads line by line.
    func start(_ script: String, name: String) throws -> ProgramProcess {
        let line = commandLine(script)
        return try ProgramProcess(try Command.find(line[0]), Array(line.dropFirst()), environment: [:],
                                  stderrPath: scratch.path("\(name).stderr"))
    }

    /// `ip ARGUMENTS` in the peer namespace, at the other end of the uplink.
    @discardableResult
    func peer(_ arguments: String...) throws -> String {
        try Command.check(try Command.find("ip"), ["-n", state.peerNamespace] + arguments)
    }

    /// The router at the peer end answers with `mac` from now on, the uplink's carrier up
    /// (TwoNetworks.routerBecomes: the container's entry for it is deleted), and the
    /// container sends it a datagram, which resolves it anew.
    func routerBecomes(_ mac: String) throws {
        try TwoNetworks.routerBecomes(mac, router: state.peerNamespace, routerLink: state.peerLink,
                                      host: state.namespace, hostLink: state.uplink, gateway: state.peerAddress)
        try sendToGateway()
    }

    /// A datagram from inside to the router, as a host's first packet: pathd.service holds no
    /// CAP_NET_ADMIN, so pathd cannot ask the kernel to resolve the gateway (ResolveGateways=,
    /// pathd.conf(5)), and without traffic the container has no entry that names the network.
    func sendToGateway() throws {
        try check("bash -c 'echo x > /dev/udp/\(state.peerAddress)/9'")
    }

    /// The arguments that run `command` in the peer namespace.
    func inPeer(_ command: [String]) -> [String] {
        ["netns", "exec", state.peerNamespace] + command
    }

    /// A file of the container, read through the overlay from outside.
    func read(_ path: String) throws -> String {
        try String(contentsOfFile: state.root + path, encoding: .utf8)
    }

    /// Writes a file of the container through the overlay from outside (its directory made).
    func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: state.root + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Installs a oneshot unit `name` that wants and is ordered after `after` and runs
    /// `command` (a shell line); it is not started.
    func writeOneshot(_ name: String, after: String, command: String) throws {
        try write("""
            [Unit]
            Wants=\(after)
            After=\(after)
            [Service]
            Type=oneshot
            RemainAfterExit=yes
            ExecStart=/bin/sh -c '\(command)'
            """, to: "/etc/systemd/system/\(name)")
        try check("systemctl daemon-reload")
    }

    /// A value of `systemctl show -p NAME --value UNIT`.
    func property(_ name: String, of unit: String) throws -> String {
        try check("systemctl show -p \(name) --value \(unit)").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `pathctl ARGUMENTS --json` inside, decoded.
    func pathctlJSON(_ arguments: String) throws -> [String: Any] {
        let text = try check("pathctl \(arguments) --json")
        guard let object = OutputLines.object(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("pathctl \(arguments) --json printed no JSON object: \(text)")
        }
        return object
    }

    /// The journal entries of this boot for `units`, oldest first.
    func journal(units: [String]) throws -> [JournalEntry] {
        let selection = units.map { "-u '\($0)'" }.joined(separator: " ")
        return try check("journalctl -b --no-pager -o json \(selection)").split(whereSeparator: \.isNewline)
            .compactMap { OutputLines.object(String($0)).map(JournalEntry.init) }
    }

    /// Halts the container and removes everything its start made.
    func stop() throws {
        guard !isStopped else { return }
        isStopped = true
        try Command.check(Self.python, [Self.script, "stop", state.directory])
        try scratch.remove()
    }

    deinit {
        guard !isStopped else { return }
        teardown("stop the container in \(state.directory)") { try stop() }
    }
}

/// One journal entry as `journalctl -o json` writes it.
struct JournalEntry: CustomStringConvertible {
    let fields: [String: Any]

    var message: String { fields["MESSAGE"] as? String ?? "" }
    /// syslog(3)'s priority: 3 error, 4 warning, 5 notice, 6 info, 7 debug.
    var priority: Int { Int(fields["PRIORITY"] as? String ?? "") ?? 6 }
    /// How the line reached the journal: `stdout` for a service's own standard output and
    /// error, `syslog` for syslog(3) (libdispatch's own messages), `journal` for systemd's.
    var transport: String { fields["_TRANSPORT"] as? String ?? "" }
    var command: String { fields["_COMM"] as? String ?? "" }
    var unit: String { fields["_SYSTEMD_UNIT"] as? String ?? fields["UNIT"] as? String ?? "" }
    var isFromSystemd: Bool { transport == "journal" && command == "systemd" }
    /// Whether `program` wrote the line: its `_COMM`, or the identifier systemd gave the
    /// output stream of the command it ran (`_COMM` is read from /proc when journald takes
    /// the line, and a short-lived command, an `ExecReload=` pathctl, may have gone by then).
    func isFrom(_ program: String) -> Bool {
        command == program || fields["SYSLOG_IDENTIFIER"] as? String == program
    }
    /// The run of the unit the line belongs to: a service's own lines carry it as a trusted
    /// field, systemd's lines about the unit as their own; empty for neither.
    var invocation: String {
        fields["_SYSTEMD_INVOCATION_ID"] as? String ?? fields["INVOCATION_ID"] as? String ?? ""
    }
    /// The process that wrote the line, as the kernel told journald.
    var pid: String { fields["_PID"] as? String ?? "" }

    var description: String { "[\(unit) \(command) \(transport) p\(priority)] \(message)" }
}

/// Whether this machine can boot a container, decided once: the reason it cannot, or nil.
enum ContainerSupport {
    static let unavailable: String? = probe()

    private static func probe() -> String? {
        if getuid() != 0 { return "booting a container needs root (network namespaces, an overlay mount)" }
        if !namespaceSupport.isAvailable { return namespaceSupport.reason }
        for tool in ["systemd-nspawn", "nsenter", "journalctl"] {
            do {
                _ = try Command.find(tool)
            } catch {
                return "\(error) (systemd-container, util-linux, systemd): `make test` installs them"
            }
        }
        if !FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd") {
            return "no /lib/systemd/systemd in this root to boot"
        }
        if !PackageUnderTest.probe.isAvailable { return PackageUnderTest.probe.reason }
        if !GIOModulePackage.probe.isAvailable { return GIOModulePackage.probe.reason }
        return nil
    }
}
