// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// A program the test talks to through its standard input and output while it runs:
/// the client programs (the examples, PathMonitorPrinter) and small helpers. Its output is read
/// line by line on a thread of its own; stderr goes to a file for diagnostics.
///
/// A `ChildProcess` with a pipe at each end: like every child of the tests, spawned with
/// posix_spawn in a clean signal state, never with Foundation's `Process` (whose `run()`
/// can crash the test runner; `Command.run` says how).
public final class ProgramProcess {
    public let command: [String]
    private let child: ChildProcess
    /// The write end of the program's input; -1 once closed.
    private let input = Mutex<Int32>(-1)
    private let lines = OutputLines()
    private let stderrPath: String

    /// Starts `executable`; `environment` replaces the runner's when given.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                stderrPath: String) throws {
        command = [executable.path] + arguments
        self.stderrPath = stderrPath
        let inputPipe = try Self.pipe()
        let outputPipe: (read: Int32, write: Int32)
        do {
            outputPipe = try Self.pipe()
        } catch {
            close(inputPipe.read)
            close(inputPipe.write)
            throw error
        }
        // The child's ends are dup2'ed to its stdin and stdout; this process keeps only its own.
        defer {
            close(inputPipe.read)
            close(outputPipe.write)
        }
        do {
            child = try ChildProcess(executable, arguments, stderrPath: stderrPath,
                                     environment: environment ?? [:], replacesEnvironment: environment != nil,
                                     standardInput: inputPipe.read, standardOutput: outputPipe.write)
        } catch {
            close(inputPipe.write)
            close(outputPipe.read)
            throw error
        }
        input.withLock { $0 = inputPipe.write }
        let lines = self.lines
        // The thread holds the read end and the buffer, never `self`; it ends at end of file.
        Thread {
            lines.read(from: outputPipe.read)
            close(outputPipe.read)
        }.start()
    }

    /// A pipe whose ends close on exec: a child gets only the ends dup2'ed to it.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw HarnessError.posix("pipe", errno: errno) }
        for end in ends where fcntl(end, F_SETFD, FD_CLOEXEC) != 0 {
            let code = errno
            ends.forEach { close($0) }
            throw HarnessError.posix("fcntl(F_SETFD, FD_CLOEXEC)", errno: code)
        }
        return (ends[0], ends[1])
    }

    /// The program's pid (the program's own when started through `ip netns exec`, which execs it).
    public var pid: pid_t { child.pid }

    /// What the program wrote to stderr so far.
    public var stderr: String {
        diagnosticText(ofFile: stderrPath)
    }

    /// Every line the program printed so far.
    public var output: [String] { lines.all }

    /// Writes `line` and a newline to the program's input.
    public func send(_ line: String) throws {
        try input.withLock { descriptor in
            guard descriptor >= 0 else { throw HarnessError("\(command.joined(separator: " ")): input already closed") }
            var bytes = Array((line + "\n").utf8)[...]
            while !bytes.isEmpty {
                let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw HarnessError.posix("\(command.joined(separator: " ")): write to its input", errno: errno)
                }
                bytes = bytes.dropFirst(count)
            }
        }
    }

    /// Closes the program's input (PathMonitorPrinter and hold-tun.py exit then).
    public func closeInput() {
        input.withLock { descriptor in
            guard descriptor >= 0 else { return }
            // close(2) releases the descriptor even when it reports an error (EINTR, EIO):
            // nothing is left to retry.
            close(descriptor)
            descriptor = -1
        }
    }

    /// The first line not yet consumed that `predicate` accepts, consuming it and every
    /// line before it; throws (listing every line seen, and stderr) when none comes
    /// within `timeout` or the program's output ends first.
    @discardableResult
    public func waitForLine(_ description: String, timeout: Duration = .seconds(10),
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
    public func waitForObject(_ description: String, timeout: Duration = .seconds(10),
                       _ predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        let line = try waitForLine(description, timeout: timeout) { line in
            OutputLines.object(line).map(predicate) ?? false
        }
        return OutputLines.object(line) ?? [:]
    }

    /// Waits for the program to exit by itself.
    public func waitForExit(timeout: Duration = .seconds(10)) throws -> Termination {
        guard let end = child.wait(until: Date().addingTimeInterval(timeout.timeInterval)) else {
            throw HarnessError("\(command.joined(separator: " ")) did not exit within \(timeout); stderr:\n\(stderr)")
        }
        return end
    }

    /// SIGKILL (if still running) and wait for it.
    public func kill() throws {
        closeInput()
        guard child.isRunning else { return }
        try child.kill(command.joined(separator: " "))
    }
}
