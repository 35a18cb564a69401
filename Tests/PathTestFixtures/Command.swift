// SPDX-License-Identifier: Apache-2.0
import Foundation

/// How a finished child process ended.
public struct Termination: CustomStringConvertible, Equatable, Sendable {
    public let status: Int32
    public let bySignal: Bool

    public var isCleanExit: Bool { !bySignal && status == 0 }

    public var description: String { bySignal ? "killed by signal \(status)" : "exit status \(status)" }

    public static func exit(_ status: Int32) -> Termination {
        Termination(status: status, bySignal: false)
    }

    public init(status: Int32, bySignal: Bool) {
        self.status = status
        self.bySignal = bySignal
    }
}

/// The captured result of a command that ran to completion.
public struct CommandResult: Sendable {
    public let command: [String]
    public let termination: Termination
    public let stdout: String
    public let stderr: String
}

/// Runs short-lived commands (`ip`, `pathctl`) and captures their output: the one way the
/// tests run a command to its end.
public enum Command {
    /// Runs `executable` with `arguments`, waits for it and returns its output, whatever its exit status.
    /// With a `timeout`, a command still running then is killed and the wait throws: the deadline
    /// that fails a test whose command (a `pathctl status` the daemon never answers) would hang.
    ///
    /// Spawned with `ChildProcess` (posix_spawn), not Foundation's `Process`: in Swift 6.3.1,
    /// `Process.run()` copies a whole `struct dirent` while it lists /proc/self/fd and now and
    /// then reads past a mapped page, crashing the test runner (swift-corelibs-foundation
    /// pull request 5472). The output goes to files, so the child can never block on a full pipe.
    public static func run(_ executable: URL, _ arguments: [String], timeout: Duration? = nil) throws -> CommandResult {
        let directory = try TemporaryDirectory()
        let outcome = Result { try run(executable, arguments, timeout: timeout, in: directory) }
        do {
            try directory.remove()
        } catch {
            if case .failure(let failure) = outcome {
                throw HarnessError("\(failure); then removing its output failed: \(error)")
            }
            throw error
        }
        return try outcome.get()
    }

    private static func run(_ executable: URL, _ arguments: [String], timeout: Duration?,
                            in directory: TemporaryDirectory) throws -> CommandResult {
        let stdoutPath = directory.path("stdout")
        let stderrPath = directory.path("stderr")
        let child = try ChildProcess(executable, arguments, stderrPath: stderrPath, stdoutPath: stdoutPath)
        let command = [executable.path] + arguments
        // NSCondition.wait(until: .distantFuture) traps: no timeout, no deadline.
        guard let termination = timeout.map({ child.wait(until: Date().addingTimeInterval($0.timeInterval)) })
            ?? child.wait()
        else {
            try child.kill(command.joined(separator: " "))
            let stderr = try String(contentsOfFile: stderrPath, encoding: .utf8)
            throw HarnessError("`\(command.joined(separator: " "))` did not finish within "
                + "\(timeout.map { "\($0)" } ?? "ever") and was killed; stderr: \(stderr)")
        }
        return CommandResult(
            command: command,
            termination: termination,
            stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: stdoutPath)), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        )
    }

    /// Runs the command and throws, with its stderr, unless it exits with status 0.
    @discardableResult
    public static func check(_ executable: URL, _ arguments: [String]) throws -> String {
        let result = try run(executable, arguments)
        guard result.termination.isCleanExit else {
            let stderr = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            throw HarnessError("`\(result.command.joined(separator: " "))` failed (\(result.termination)): \(stderr)")
        }
        return result.stdout
    }

    /// nobody's user and group id, which the tests run clients as.
    public static let nobody = 65534

    /// `command` run as `user` (user and group, no supplementary groups) through
    /// setpriv(1): the argument vector to execute.
    public static func asUser(_ command: [String], user: Int = nobody) throws -> [String] {
        [try find("setpriv").path, "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--"] + command
    }

    /// Finds a system tool such as `ip` on PATH or in the sbin directories that a non-login PATH may omit.
    public static func find(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        for directory in directories {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw HarnessError("\(name) not found in \(directories.joined(separator: ":"))")
    }
}
