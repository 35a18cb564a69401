import Foundation

/// How a finished child process ended.
struct Termination: CustomStringConvertible, Equatable, Sendable {
    let status: Int32
    let bySignal: Bool

    var isCleanExit: Bool { !bySignal && status == 0 }

    var description: String { bySignal ? "killed by signal \(status)" : "exit status \(status)" }

    static func exit(_ status: Int32) -> Termination {
        Termination(status: status, bySignal: false)
    }

    init(status: Int32, bySignal: Bool) {
        self.status = status
        self.bySignal = bySignal
    }

    init(_ process: Process) {
        status = process.terminationStatus
        bySignal = process.terminationReason == .uncaughtSignal
    }
}

/// The captured result of a command that ran to completion.
struct CommandResult: Sendable {
    let command: [String]
    let termination: Termination
    let stdout: String
    let stderr: String
}

/// Runs short-lived commands (`ip`, `pathctl`) and captures their output.
enum Command {
    /// Runs `executable` with `arguments`, waits for it and returns its output, whatever its exit status.
    /// With a `timeout`, a command still running then is killed and the wait throws: the deadline
    /// that fails a test whose command (a `pathctl status` the daemon never answers) would hang.
    static func run(_ executable: URL, _ arguments: [String], timeout: Duration? = nil) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Both pipes are drained at once: a child that fills one while we block on the other would hang.
        let stderrReader = PipeReader(stderrPipe.fileHandleForReading)
        let stdoutReader = PipeReader(stdoutPipe.fileHandleForReading)
        if let timeout, exited.wait(timeout: .now() + timeout.timeInterval) == .timedOut {
            // SIGKILL: the child inherits the test thread's blocked signals (see `ChildProcess`).
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let stderr = String(decoding: stderrReader.waitForEnd(), as: UTF8.self)
            throw HarnessError("`\(([executable.path] + arguments).joined(separator: " "))` did not finish within "
                + "\(timeout) and was killed; stderr: \(stderr)")
        }
        let stdout = stdoutReader.waitForEnd()
        let stderr = stderrReader.waitForEnd()
        process.waitUntilExit()
        return CommandResult(
            command: [executable.path] + arguments,
            termination: Termination(process),
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    /// Runs the command and throws, with its stderr, unless it exits with status 0.
    @discardableResult
    static func check(_ executable: URL, _ arguments: [String]) throws -> String {
        let result = try run(executable, arguments)
        guard result.termination.isCleanExit else {
            let stderr = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            throw HarnessError("`\(result.command.joined(separator: " "))` failed (\(result.termination)): \(stderr)")
        }
        return result.stdout
    }

    /// Finds a system tool such as `ip` on PATH or in the sbin directories that a non-login PATH may omit.
    static func find(_ name: String) throws -> URL {
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

/// Reads a pipe to its end on its own thread.
///
/// `@unchecked Sendable`: `data` and `done` are only touched with `condition` locked.
private final class PipeReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data()
    private var done = false

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            let read = handle.readDataToEndOfFile()
            condition.lock()
            data = read
            done = true
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    func waitForEnd() -> Data {
        condition.lock()
        defer { condition.unlock() }
        while !done {
            condition.wait()
        }
        return data
    }
}
