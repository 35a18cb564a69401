import Foundation

/// A program the test talks to through its standard input and output while it runs:
/// the client programs (the examples, PathProbe) and small helpers. Its output is read
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
        Thread { ProgramProcess.readLines(from: reading, into: lines) }.start()
    }

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

    /// Closes the program's input (PathProbe and hold-tun.py exit then).
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
            ProgramProcess.object(line).map(predicate) ?? false
        }
        return ProgramProcess.object(line) ?? [:]
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
            throw HarnessError.posix("kill(\(process.processIdentifier), SIGKILL)", errno: errno)
        }
        process.waitUntilExit()
    }

    static func object(_ line: String) -> [String: Any]? {
        do {
            return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        } catch {
            return nil
        }
    }

    private static func readLines(from handle: FileHandle, into lines: OutputLines) {
        var pending = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty {
                if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
                lines.finish()
                return
            }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
    }
}

/// A program's output lines, a cursor past the consumed ones, and whether it ended.
///
/// `@unchecked Sendable`: every stored property is read and written with `condition` locked.
private final class OutputLines: @unchecked Sendable {
    struct Ending: Error {
        let text: String
    }

    private let condition = NSCondition()
    private var received: [String] = []
    private var consumed = 0
    private var ended = false

    var all: [String] {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    var listing: String {
        condition.lock()
        defer { condition.unlock() }
        let marked = received.enumerated().map { "  \($0.offset < consumed ? "(consumed) " : "")\($0.element)" }
        return marked.isEmpty ? "  (none)" : marked.joined(separator: "\n")
    }

    func append(_ line: String) {
        condition.lock()
        received.append(line)
        condition.broadcast()
        condition.unlock()
    }

    func finish() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    func waitFor(deadline: Date, _ predicate: (String) -> Bool) throws -> String {
        condition.lock()
        defer { condition.unlock() }
        var scanned = consumed
        while true {
            while scanned < received.count {
                scanned += 1
                if predicate(received[scanned - 1]) {
                    consumed = scanned
                    return received[scanned - 1]
                }
            }
            if ended { throw Ending(text: "the output ended before it came") }
            if !condition.wait(until: deadline) && scanned == received.count {
                throw Ending(text: "timed out")
            }
        }
    }
}
