// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// scripts/test/hostile-client.py running as nobody (uid and gid 65534, no groups) in
/// namespace A: a plain Python client, as any local user could write one. It reports
/// on stdout one JSON object a line — progress events and a last `summary`; closing its
/// stdin says "stop". Its stderr goes to a file in the topology's directory.
///
/// The socket's directory must be reachable by nobody (`VethTopology.openDirectoryToOthers`).
final class HostileClient {
    static let userID = 65534

    private let mode: String
    private let program: ProgramProcess

    /// Starts `hostile-client.py SOCKET MODE ARGUMENTS`; `deadline` bounds the script's own waits.
    init(_ topology: VethTopology, socketPath: String? = nil, mode: String, _ arguments: [String] = [],
         deadline: Duration = .seconds(60)) throws {
        self.mode = mode
        let command = topology.a.execArguments(try Command.asUser([
            "/usr/bin/python3", Repository.path("scripts/test/hostile-client.py"),
            "--deadline", String(Int(deadline.timeInterval)), socketPath ?? topology.socketPath, mode,
        ] + arguments, user: Self.userID))
        program = try ProgramProcess(command.executable, command.arguments, stderrPath: topology.directory.path(
            "hostile-\(mode)-\(UInt32.random(in: 0 ... .max)).stderr"))
    }

    /// Waits for the next event named `name` (skipping others); throws with the lines seen
    /// and stderr if the script ends or the deadline passes first.
    @discardableResult
    func waitFor(_ name: String, timeout: Duration = .seconds(30)) throws -> [String: Any] {
        try program.waitForObject("\"\(name)\" from \(mode) as nobody",
                                  timeout: timeout) { $0["event"] as? String == name }
    }

    /// Closes stdin (the script's "stop"), then waits for its summary and its exit, which must be 0.
    func finish(timeout: Duration = .seconds(30)) throws -> [String: Any] {
        program.closeInput()
        let summary = try waitFor("summary", timeout: timeout)
        let end = try program.waitForExit(timeout: timeout)
        guard end == .exit(0) else {
            throw HarnessError("\(mode) as nobody ended with \(end); stderr:\n\(program.stderr)")
        }
        return summary
    }

    deinit {
        teardown("kill \(mode) as nobody") { try program.kill() }
    }
}
