import Foundation
import Testing

/// scripts/test/hostile-client.py running as nobody (uid and gid 65534, no groups) in
/// namespace A: a plain Python client, as any local user could write one. It reports
/// on stdout one JSON object a line — progress events and a last `summary` — which this
/// class collects on a background thread; stdin is how the test says "go on" (a line)
/// or "stop" (end of file).
///
/// The socket's directory must be reachable by nobody (`VethTopology.openDirectoryToOthers`).
final class HostileClient {
    static let userID = 65534

    let mode: String
    private let process = Process()
    private let input = Pipe()
    private let events = EventBuffer()
    private let errors = Pipe()
    private var isInputClosed = false
    private var isLaunched = false

    /// Starts `hostile-client.py SOCKET MODE ARGUMENTS`; `deadline` bounds the script's own waits.
    init(_ topology: VethTopology, socketPath: String? = nil, mode: String, _ arguments: [String] = [],
         deadline: Duration = .seconds(60)) throws {
        self.mode = mode
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/test/hostile-client.py")
        let command = topology.a.execArguments([
            try Command.find("setpriv").path, "--reuid=\(Self.userID)", "--regid=\(Self.userID)", "--clear-groups",
            "/usr/bin/python3", script.path, "--deadline", String(Int(deadline.timeInterval)),
            socketPath ?? topology.socketPath, mode,
        ] + arguments)
        process.executableURL = command.executable
        process.arguments = command.arguments
        process.standardInput = input
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        isLaunched = true
        let events = self.events
        let reading = output.fileHandleForReading
        Thread { HostileClient.readEvents(from: reading, into: events) }.start()
    }

    /// Waits for the next event named `name` (skipping others); throws with stderr and
    /// the events seen if the script ends or the deadline passes first.
    @discardableResult
    func waitFor(_ name: String, timeout: Duration = .seconds(30)) throws -> [String: Any] {
        do {
            return try events.waitFor(name, deadline: Date().addingTimeInterval(timeout.timeInterval))
        } catch {
            throw HarnessError("\(mode) as nobody: \(error); stderr: \(stderrSoFar())")
        }
    }

    /// Tells the script to go on (a line on its stdin).
    func proceed() throws {
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
    }

    /// Closes stdin (the script's "stop"), then waits for its summary and its exit.
    func finish(timeout: Duration = .seconds(30)) throws -> [String: Any] {
        closeInput()
        let summary = try waitFor("summary", timeout: timeout)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("\(mode) as nobody exited with \(process.terminationStatus); stderr: \(stderrSoFar())")
        }
        return summary
    }

    private func closeInput() {
        guard !isInputClosed else { return }
        isInputClosed = true
        do {
            try input.fileHandleForWriting.close()
        } catch {
            Issue.record("closing the stdin of \(mode) as nobody: \(error)")
        }
    }

    /// SIGKILL: the child inherits the test thread's blocked signals (see `ChildProcess`),
    /// so SIGTERM might never arrive.
    private func kill() {
        guard isLaunched else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// stderr is read only once the script has ended or is killed: it is small (a Python traceback at most).
    private func stderrSoFar() -> String {
        kill()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self)
    }

    deinit {
        closeInput()
        kill()
    }

    private static func readEvents(from handle: FileHandle, into events: EventBuffer) {
        var pending = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty {
                events.finish()
                return
            }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                events.append(pending[pending.startIndex..<newline])
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
    }
}

/// The events a script printed so far, a cursor past the consumed ones, and whether it ended.
///
/// `@unchecked Sendable`: every stored property is read and written only with `condition` locked.
private final class EventBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private var received: [[String: Any]] = []
    private var unparsable: [String] = []
    private var consumed = 0
    private var ended = false

    func append(_ line: Data) {
        condition.lock()
        defer { condition.unlock() }
        do {
            if let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] {
                received.append(object)
            } else {
                unparsable.append(String(decoding: line, as: UTF8.self))
            }
        } catch {
            unparsable.append(String(decoding: line, as: UTF8.self))
        }
        condition.broadcast()
    }

    func finish() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    func waitFor(_ name: String, deadline: Date) throws -> [String: Any] {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while consumed < received.count {
                let event = received[consumed]
                consumed += 1
                if event["event"] as? String == name { return event }
            }
            if ended { throw HarnessError("ended before \"\(name)\"; events \(received), other output \(unparsable)") }
            if !condition.wait(until: deadline) && consumed == received.count {
                throw HarnessError("no \"\(name)\" before the deadline; events \(received), other output \(unparsable)")
            }
        }
    }
}
