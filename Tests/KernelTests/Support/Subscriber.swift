// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// A client that sends `{"op":"subscribe"}` and collects the daemon's JSON lines on a background thread.
final class Subscriber {
    let socketPath: String
    private let socket: UnixConnection
    private let lines = OutputLines()
    private var isClosed = false

    /// Connects and sends `request` (a subscribe, by default without criteria).
    init(socketPath: String, request: String = "{\"op\":\"subscribe\"}") throws {
        self.socketPath = socketPath
        socket = try UnixConnection(connectingTo: socketPath)
        let descriptor = socket.descriptor
        let lines = self.lines
        // The thread owns no reference to `self`: it ends when `close()` shuts the socket down,
        // and `close()` waits for that before the descriptor is closed. Started before the
        // send, so that a failed send (deinit runs `close()`) does not wait for it forever.
        Thread { lines.read(from: descriptor) }.start()
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
        do {
            let line = try lines.waitFor(deadline: Date().addingTimeInterval(timeout.timeInterval)) { line in
                OutputLines.object(line).map(predicate) ?? false
            }
            return OutputLines.object(line) ?? [:]
        } catch let reason as OutputLines.Ending {
            throw HarnessError("waiting for \(description): \(reason.text); lines seen:\n\(lines.listing)")
        }
    }

    /// The next line not yet consumed, whatever it is.
    @discardableResult
    func nextLine(_ description: String, timeout: Duration = .seconds(10)) throws -> [String: Any] {
        try waitFor(description, timeout: timeout) { _ in true }
    }

    /// Waits until the daemon closes the connection (it exited, say) and returns every
    /// line it sent, consumed or not, oldest first. Throws when the connection is still
    /// open after `timeout` or a line is not a JSON object.
    func linesUntilClosed(_ description: String, timeout: Duration = .seconds(10)) throws -> [[String: Any]] {
        guard lines.waitUntilFinished(deadline: Date().addingTimeInterval(timeout.timeInterval)) else {
            throw HarnessError("\(description): the connection was still open after \(timeout); lines " +
                               "seen:\n\(lines.listing)")
        }
        return try lines.all.map { line in
            guard let object = OutputLines.object(line) else {
                throw HarnessError("\(description): not a JSON object: \(line)")
            }
            return object
        }
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
}
