import Foundation

/// A client that sends `{"op":"subscribe"}` and collects the daemon's JSON lines on a background thread.
final class Subscriber {
    let socketPath: String
    private let socket: UnixSocket
    private let lines = LineBuffer()
    private var isClosed = false

    /// Connects and sends `request` (a subscribe, by default without criteria).
    init(socketPath: String, request: String = "{\"op\":\"subscribe\"}") throws {
        self.socketPath = socketPath
        socket = try UnixSocket(connectingTo: socketPath)
        let descriptor = socket.descriptor
        let lines = self.lines
        // The thread owns no reference to `self`: it ends when `close()` shuts the socket down,
        // and `close()` waits for that before the descriptor is closed. Started before the
        // send, so that a failed send (deinit runs `close()`) does not wait for it forever.
        Thread { Subscriber.readLines(from: descriptor, into: lines) }.start()
        try socket.send(request + "\n")
    }

    /// Returns the first line not yet consumed that matches `predicate`, consuming it and every line before it.
    /// Throws when no such line arrives within `timeout` or the daemon closes the connection; the error lists
    /// every line seen.
    @discardableResult
    func waitFor(
        _ description: String,
        timeout: Duration = .seconds(10),
        _ predicate: ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        try lines.waitFor(description, deadline: Date().addingTimeInterval(timeout.timeInterval), predicate)
    }

    /// The next line not yet consumed, whatever it is.
    @discardableResult
    func nextLine(_ description: String, timeout: Duration = .seconds(10)) throws -> [String: Any] {
        try waitFor(description, timeout: timeout) { _ in true }
    }

    /// Idempotent: `deinit` calls it again after an explicit close.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        socket.shutdownBoth()
        lines.waitUntilFinished()
        socket.close()
    }

    deinit {
        close()
    }

    private static func readLines(from descriptor: Int32, into lines: LineBuffer) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var pending: [UInt8] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                lines.finish("read failed: \(String(cString: strerror(errno)))")
                return
            }
            if count == 0 {
                lines.finish("connection closed")
                return
            }
            pending.append(contentsOf: chunk[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
    }
}

/// The lines received so far, a cursor past the consumed ones, and why reading ended.
///
/// `@unchecked Sendable`: every stored property is read and written only with `condition` locked.
private final class LineBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private var received: [String] = []
    private var consumed = 0
    private var endReason: String?

    func append(_ line: String) {
        condition.lock()
        received.append(line)
        condition.broadcast()
        condition.unlock()
    }

    func finish(_ reason: String) {
        condition.lock()
        endReason = reason
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilFinished() {
        condition.lock()
        defer { condition.unlock() }
        while endReason == nil {
            condition.wait()
        }
    }

    func waitFor(
        _ description: String,
        deadline: Date,
        _ predicate: ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        condition.lock()
        defer { condition.unlock() }
        var scanned = consumed
        while true {
            while scanned < received.count {
                let index = scanned
                scanned += 1
                if let object = Self.parse(received[index]), predicate(object) {
                    consumed = index + 1
                    return object
                }
            }
            if let endReason {
                throw failure(description, because: "\(endReason) before it arrived")
            }
            if !condition.wait(until: deadline) && scanned == received.count && endReason == nil {
                throw failure(description, because: "timed out")
            }
        }
    }

    private static func parse(_ line: String) -> [String: Any]? {
        do {
            return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        } catch {
            // Not JSON: it matches nothing, and stays in `received` for the failure's list of lines seen.
            return nil
        }
    }

    /// Called with `condition` locked.
    private func failure(_ description: String, because reason: String) -> HarnessError {
        let listing = received.enumerated().map { index, line in
            "  \(index < consumed ? "(consumed) " : "")\(line)"
        }
        let seen = listing.isEmpty ? "  (none)" : listing.joined(separator: "\n")
        return HarnessError("waiting for \(description): \(reason); lines seen:\n\(seen)")
    }
}
