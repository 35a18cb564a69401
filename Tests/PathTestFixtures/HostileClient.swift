// SPDX-License-Identifier: Apache-2.0
import Foundation

/// scripts/test/hostile-client.py running as nobody (uid and gid 65534, no groups): a
/// plain Python client, as any local user could write one. It reports on stdout one JSON
/// object a line — progress events and a last `summary`; closing its stdin says "stop".
/// Its stderr goes to a file in the test's directory. The kernel tests run it in their
/// namespace (KernelTests' `HostileClient(topology, …)`), the daemon tests beside an
/// in-process daemon.
///
/// The socket's directory must be reachable by nobody.
public final class HostileClient {
    public static let userID = 65534

    private let mode: String
    private let program: ProgramProcess

    /// Starts `hostile-client.py SOCKET MODE ARGUMENTS`, inside `namespace` when given;
    /// `deadline` bounds the script's own waits; its stderr goes to a file in `directory`.
    public init(socketPath: String, mode: String, _ arguments: [String] = [], directory: String,
                namespace: NetworkNamespace? = nil, deadline: Duration = .seconds(60)) throws {
        self.mode = mode
        let asNobody = try Command.asUser([
            "/usr/bin/python3", Repository.path("scripts/test/hostile-client.py"),
            "--deadline", String(Int(deadline.timeInterval)), socketPath, mode,
        ] + arguments, user: Self.userID)
        let command = namespace?.execArguments(asNobody)
            ?? (executable: URL(fileURLWithPath: asNobody[0]), arguments: Array(asNobody.dropFirst()))
        program = try ProgramProcess(command.executable, command.arguments,
                                     stderrPath: "\(directory)/hostile-\(mode)-\(UInt32.random(in: 0 ... .max)).stderr")
    }

    /// The events printed so far that are named `name`, without waiting.
    public func events(named name: String) -> [[String: Any]] {
        program.output.compactMap(OutputLines.object).filter { $0["event"] as? String == name }
    }

    /// Waits for the next event named `name` (skipping others); throws with the lines seen
    /// and stderr if the script ends or the deadline passes first.
    @discardableResult
    public func waitFor(_ name: String, timeout: Duration = .seconds(30)) throws -> [String: Any] {
        try program.waitForObject("\"\(name)\" from \(mode) as nobody",
                                  timeout: timeout) { $0["event"] as? String == name }
    }

    /// Closes stdin (the script's "stop"), then waits for its summary and its exit, which must be 0.
    public func finish(timeout: Duration = .seconds(30)) throws -> [String: Any] {
        program.closeInput()
        let summary = try waitFor("summary", timeout: timeout)
        let end = try program.waitForExit(timeout: timeout)
        guard end == .exit(0) else {
            throw HarnessError("\(mode) as nobody ended with \(end); stderr:\n\(program.stderr)")
        }
        return summary
    }

    /// Kills the script at once: its connections close with it, whatever they waited for.
    public func stop() throws {
        try program.kill()
    }

    deinit {
        teardown("kill \(mode) as nobody") { try program.kill() }
    }
}
