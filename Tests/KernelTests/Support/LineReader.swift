// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathTestFixtures
import SystemCalls

/// Reads newline-terminated lines from a connected socket on the calling thread, each
/// wait bounded by poll(2) against a deadline. For drills that must see the daemon's end
/// of file, which `Subscriber` turns into an error.
final class LineReader {
    enum Event: Equatable {
        case line(String)
        case endOfFile
    }

    private let descriptor: Int32
    private var pending: [UInt8] = []
    private var atEnd = false

    init(_ socket: UnixConnection) {
        descriptor = socket.descriptor
    }

    /// The next line, or `.endOfFile`; throws when neither comes before `deadline`.
    func next(until deadline: Date) throws -> Event {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return .line(line)
            }
            if atEnd { return .endOfFile }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw HarnessError("no line and no end of file before the deadline") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw HarnessError.posix("poll", errno: errno)
            }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                // ECONNRESET: the peer died with unread data; for a reader that is its end.
                if errno == ECONNRESET { atEnd = true; continue }
                throw HarnessError.posix("read", errno: errno)
            }
            if count == 0 { atEnd = true }
            pending.append(contentsOf: chunk[..<count])
        }
    }

    /// Skips lines until one contains `fragment`; throws at end of file or the deadline.
    @discardableResult
    func waitForLine(containing fragment: String, until deadline: Date) throws -> String {
        while true {
            switch try next(until: deadline) {
            case .line(let line) where line.contains(fragment):
                return line
            case .line:
                continue
            case .endOfFile:
                throw HarnessError("end of file before a line containing \(fragment)")
            }
        }
    }

    /// Skips lines until end of file; throws if the deadline passes first.
    func waitForEndOfFile(until deadline: Date) throws {
        while try next(until: deadline) != .endOfFile {}
    }
}

/// The process at the other end of a connected Unix socket (SO_PEERCRED): the daemon's
/// pid, found without reaching into `DaemonProcess`.
func peerProcessID(of socket: UnixConnection) throws -> pid_t {
    do {
        return try FileDescriptor(rawValue: socket.descriptor).peerCredentials().processID
    } catch {
        throw HarnessError.posix("getsockopt(SO_PEERCRED)", errno: error.rawValue)
    }
}

extension VethTopology {
    /// Writes `commands` to a file and runs them with `ip -batch` in namespace A: one
    /// process, so the kernel sees the changes back to back.
    func batchInA(_ commands: [String], name: String) throws {
        let path = directory.path(name)
        try (commands.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        try a.ip("-batch", path)
    }
}

extension PathLine {
    /// Satisfied with IPv4, `interface` first among the interfaces (the one the kernel chose).
    static func satisfied(primarily interface: String) -> ([String: Any]) -> Bool {
        { line in satisfied(through: interface)(line) && interfaceNames(line).first == interface }
    }

    /// None of the interfaces' names starts with `prefix`.
    static func noInterface(named prefix: String) -> ([String: Any]) -> Bool {
        { line in !interfaceNames(line).contains { $0.hasPrefix(prefix) } }
    }
}

extension VethTopology {
    /// Runs `body` with a pathd started with extra `arguments` in namespace A, on the
    /// topology's socket, and stops it afterwards whether `body` returns or throws.
    func withDaemon<Result>(arguments: [String], _ body: (DaemonProcess) throws -> Result) throws -> Result {
        let stderrPath = directory.path("pathd-drill-\(UInt32.random(in: 0 ... .max)).stderr")
        let daemon = try DaemonProcess(in: a, socketPath: socketPath, stderrPath: stderrPath,
                                       arguments: arguments)
        defer { teardown("stop pathd \(arguments)") { try daemon.terminate() } }
        try daemon.waitUntilListening()
        return try body(daemon)
    }
}

/// Counts the lines a connection receives, by message type, on a background thread.
///
/// `@unchecked Sendable`: `counts` and `ended` are only touched with `condition` locked.
final class ReplyCounter: @unchecked Sendable {
    private let condition = NSCondition()
    private var counts: [String: Int] = [:]
    private var ended = false

    /// Starts reading `descriptor` until end of file; the caller keeps the socket open
    /// until `waitUntilEnded`.
    init(descriptor: Int32) {
        Thread { [self] in read(descriptor) }.start()
    }

    /// Waits until `done(counts)` holds; throws with the counts at the deadline or at end of file.
    func wait(until deadline: Date, _ description: String, _ done: ([String: Int]) -> Bool) throws {
        condition.lock()
        defer { condition.unlock() }
        while !done(counts) {
            if ended { throw HarnessError("\(description): connection ended; counts \(counts)") }
            if !condition.wait(until: deadline) && !done(counts) {
                throw HarnessError("\(description): timed out; counts \(counts)")
            }
        }
    }

    func waitUntilEnded() {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
    }

    private func read(_ descriptor: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: chunk[..<count])
            var types: [String] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                types.append(Self.type(of: pending[..<newline]))
                pending.removeSubrange(...newline)
            }
            condition.lock()
            for type in types { counts[type, default: 0] += 1 }
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// The line's "type", or "unparsable": a line that is not JSON is itself the
    /// finding the caller reports, so the parse error is turned into that word.
    private static func type(of line: ArraySlice<UInt8>) -> String {
        do {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            return object?["type"] as? String ?? "unparsable"
        } catch {
            return "unparsable"
        }
    }
}
