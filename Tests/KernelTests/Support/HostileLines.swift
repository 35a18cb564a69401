// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathTestFixtures

/// Request lines a hostile or broken client might send, each of which must be answered
/// with exactly one error line (and never a crash or a disconnect), with a valid ping
/// now and then to show the connection still works.
struct HostileLines {
    let bytes: [UInt8]
    /// Error lines the daemon owes for `bytes`.
    let errors: Int
    /// Pong lines it owes.
    let pings: Int

    /// Lines that are not requests. None is blank (a blank line gets no reply) and none
    /// reaches the 64 KiB line limit (that one closes the connection).
    static let catalogue: [[UInt8]] = [
        Array("{".utf8),
        Array("}".utf8),
        Array("[1,2,3]".utf8),
        Array("\"just a string\"".utf8),
        Array("{\"op\":\"launch\",\"id\":1}".utf8),
        Array("{\"op\":42}".utf8),
        Array("{\"op\":\"status\",\"id\":{\"nested\":true}}".utf8),
        Array("{\"op\":\"status\",\"criteria\":{\"requiredInterfaceType\":\"moon\"}}".utf8),
        Array("{\"op\":\"subscribe\",\"criteria\":{\"prohibitedInterfaceTypes\":\"wifi\"}}".utf8),
        Array("{\"op\":\"ping\",\"criteria\":{}}".utf8),
        Array("{\"op\":\"unsubscribe\",\"id\":\"never-subscribed\"}".utf8),
        Array(String(repeating: "[", count: 500).utf8),
        Array("{\"op\":\"status\",\"op\":".utf8),
        [0x01, 0x02, 0x7F, 0x00, 0x7B],
        [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D],
        Array("{\"op\":\"st\\u00\"}".utf8),
        Array(String(repeating: "x", count: 8000).utf8),
        Array("{\"op\":\"status\"} trailing".utf8),
    ]

    static func make(count: Int, pingEvery: Int) -> HostileLines {
        var bytes: [UInt8] = []
        // Reserved up front: grown by doubling, the copy would briefly hold twice its 10 MB.
        let cycle = catalogue.reduce(0) { $0 + $1.count + 1 }
        bytes.reserveCapacity((count / catalogue.count + 1) * cycle + (count / pingEvery + 1) * 32)
        var pings = 0
        for index in 0..<count {
            bytes += catalogue[index % catalogue.count]
            bytes.append(UInt8(ascii: "\n"))
            if index % pingEvery == pingEvery - 1 {
                bytes += Array("{\"op\":\"ping\",\"id\":\(index)}\n".utf8)
                pings += 1
            }
        }
        return HostileLines(bytes: bytes, errors: count, pings: pings)
    }
}

/// Writes bytes to a socket on a background thread, so the test thread can keep
/// changing the kernel meanwhile.
///
/// `@unchecked Sendable`: `failure` and `done` are only touched with `condition` locked.
final class BackgroundSend: @unchecked Sendable {
    private let condition = NSCondition()
    private var failure: String?
    private var done = false

    init(descriptor: Int32, bytes: [UInt8]) {
        Thread { [self] in send(bytes, to: descriptor) }.start()
    }

    /// Throws if the send failed or is not finished by `deadline`.
    func wait(until deadline: Date) throws {
        condition.lock()
        defer { condition.unlock() }
        while !done {
            if !condition.wait(until: deadline) && !done { throw HarnessError("send not finished by the deadline") }
        }
        if let failure { throw HarnessError(failure) }
    }

    /// Waits for the thread to end, however it ends (after a shutdown, send fails at once).
    func waitUntilDone() {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
    }

    private func send(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        var problem: String?
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, min($0.count, 16 * 1024), Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                problem = "send: \(String(cString: strerror(errno)))"
                break
            }
            offset += written
        }
        condition.lock()
        failure = problem
        done = true
        condition.broadcast()
        condition.unlock()
    }
}
