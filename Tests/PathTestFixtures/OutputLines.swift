// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The lines a program or a connection wrote, a cursor past the consumed ones, and why
/// the output ended: what `ProgramProcess` and `Subscriber` wait on. A reader thread
/// fills it (`read(from:)`); the test consumes it (`waitFor`).
///
/// `@unchecked Sendable`: every stored property is read and written with `condition` locked.
public final class OutputLines: @unchecked Sendable {
    /// Why `waitFor` gave up: the deadline passed, or the output ended first.
    public struct Ending: Error {
        public let text: String
    }

    private let condition = NSCondition()
    private var received: [String] = []
    private var consumed = 0
    private var endReason: String?

    public init() {}

    public var all: [String] {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    /// Every line so far, one an indented line, the consumed ones marked.
    public var listing: String {
        condition.lock()
        defer { condition.unlock() }
        let marked = received.enumerated().map { "  \($0.offset < consumed ? "(consumed) " : "")\($0.element)" }
        return marked.isEmpty ? "  (none)" : marked.joined(separator: "\n")
    }

    public func append(_ line: String) {
        condition.lock()
        received.append(line)
        condition.broadcast()
        condition.unlock()
    }

    /// No more lines will come; `reason` says why ("end of file", "read failed: …").
    public func finish(_ reason: String) {
        condition.lock()
        endReason = reason
        condition.broadcast()
        condition.unlock()
    }

    public func waitUntilFinished() {
        condition.lock()
        defer { condition.unlock() }
        while endReason == nil {
            condition.wait()
        }
    }

    /// Whether the output ended before `deadline`.
    public func waitUntilFinished(deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while endReason == nil {
            if !condition.wait(until: deadline) { break }
        }
        return endReason != nil
    }

    /// The first line not yet consumed that `predicate` accepts, consuming it and every
    /// line before it; throws `Ending` when the output ends or `deadline` passes first.
    public func waitFor(deadline: Date, _ predicate: (String) -> Bool) throws -> String {
        try BlockingTest.requireOwnThread("waiting for a line of output")
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
            if let endReason { throw Ending(text: "\(endReason) before it came") }
            if !condition.wait(until: deadline) && scanned == received.count && endReason == nil {
                throw Ending(text: "timed out")
            }
        }
    }

    /// Reads `descriptor` until end of file or a read error, appending each line (a last
    /// one without its newline too), then finishes with the reason. Runs on a thread of
    /// its own; the caller keeps the descriptor open until `waitUntilFinished` returns.
    public func read(from descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var pending: [UInt8] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            let code = errno
            if count < 0 && code == EINTR { continue }
            if count <= 0 {
                if !pending.isEmpty { append(String(decoding: pending, as: UTF8.self)) }
                finish(count == 0 ? "end of file" : "read failed: \(String(cString: strerror(code)))")
                return
            }
            pending.append(contentsOf: chunk[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
    }

    /// The text written so far to the file at `path` (a child's stdout or stderr), ""
    /// before the file exists.
    public static func text(ofFile path: String) throws -> String {
        FileManager.default.fileExists(atPath: path) ? try String(contentsOfFile: path, encoding: .utf8) : ""
    }

    /// The JSON objects written so far to the file at `path`, one a line; a partly
    /// written last line is not one yet.
    public static func objects(inFile path: String) throws -> [[String: Any]] {
        try text(ofFile: path).split(separator: "\n").map(String.init).compactMap(object)
    }

    /// The line as a JSON object, or nil: a line that is not one matches no predicate
    /// and stays in `listing`, which is where a failure shows it.
    public static func object(_ line: String) -> [String: Any]? {
        do {
            return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        } catch {
            return nil
        }
    }
}
