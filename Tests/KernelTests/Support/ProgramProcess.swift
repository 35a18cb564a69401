import Foundation

/// A program the test talks to through its standard input and output while it runs:
/// the client programs (the examples, PathMonitorPrinter) and small helpers. Its output is read
/// line by line on a thread of its own; stderr goes to a file for diagnostics.
///
/// Started with Foundation's `Process`, which hands the test runner's blocked signals
/// to the child: these programs are ended by closing their input or by SIGKILL, never
/// by SIGTERM (the daemon, which must see SIGTERM, is a `ChildProcess`).
final class ProgramProcess {
    let command: [String]
    private let process = Process()
    private let input = Pipe()
    private let lines = OutputLines()
    private let stderrPath: String
    private var inputClosed = false

    /// Starts `executable`; `environment` replaces the runner's when given.
    init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, stderrPath: String) throws {
        command = [executable.path] + arguments
        self.stderrPath = stderrPath
        guard FileManager.default.createFile(atPath: stderrPath, contents: nil) else {
            throw HarnessError("cannot create \(stderrPath)")
        }
        let output = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        let reading = output.fileHandleForReading
        let lines = self.lines
        // The thread holds the pipe and the buffer, never `self`; it ends at end of file.
        Thread { withExtendedLifetime(reading) { lines.read(from: reading.fileDescriptor) } }.start()
    }

    /// The program's pid (the program's own when started through `ip netns exec`, which execs it).
    var pid: pid_t { process.processIdentifier }

    /// What the program wrote to stderr so far.
    var stderr: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "(\(stderrPath) unreadable)"
    }

    /// Every line the program printed so far.
    var output: [String] { lines.all }

    /// Writes `line` and a newline to the program's input.
    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes the program's input (PathMonitorPrinter and hold-tun.py exit then).
    func closeInput() {
        guard !inputClosed else { return }
        inputClosed = true
        do {
            try input.fileHandleForWriting.close()
        } catch {
            // Already closed by the other side's exit: nothing is lost.
        }
    }

    /// The first line not yet consumed that `predicate` accepts, consuming it and every
    /// line before it; throws (listing every line seen, and stderr) when none comes
    /// within `timeout` or the program's output ends first.
    @discardableResult
    func waitForLine(_ description: String, timeout: Duration = .seconds(10),
                     _ predicate: (String) -> Bool) throws -> String {
        do {
            return try lines.waitFor(deadline: Date().addingTimeInterval(timeout.timeInterval), predicate)
        } catch let reason as OutputLines.Ending {
            throw HarnessError("\(command.joined(separator: " ")): waiting for \(description): \(reason.text); "
                               + "lines seen:\n\(lines.listing)\nstderr:\n\(stderr)")
        }
    }

    /// `waitForLine` for programs that print JSON objects, one a line.
    @discardableResult
    func waitForObject(_ description: String, timeout: Duration = .seconds(10),
                       _ predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        let line = try waitForLine(description, timeout: timeout) { line in
            OutputLines.object(line).map(predicate) ?? false
        }
        return OutputLines.object(line) ?? [:]
    }

    /// Waits for the program to exit by itself.
    func waitForExit(timeout: Duration = .seconds(10)) throws -> Termination {
        try waitUntil("\(command.joined(separator: " ")) exits", timeout: timeout,
                      detail: { "; stderr:\n\(self.stderr)" }) { !process.isRunning }
        return Termination(process)
    }

    /// SIGKILL (if still running) and wait for it.
    func kill() throws {
        closeInput()
        guard process.isRunning else { return }
        if Glibc.kill(process.processIdentifier, SIGKILL) != 0 && errno != ESRCH {
            throw HarnessError.posix("\(command.joined(separator: " ")): kill(\(process.processIdentifier), SIGKILL)", errno: errno)
        }
        process.waitUntilExit()
    }
}
