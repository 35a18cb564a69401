// SPDX-License-Identifier: Apache-2.0
import PathModel
import SystemCalls
import Testing

/// The socket-path rule of pathd.conf and every program's `--socket` (PathModel) against
/// the address the listener and clients really build (SystemCalls, from `sockaddr_un`).
@Suite("socket path limit")
struct SocketPathLimitTests {
    @Test("SocketPath.maximumBytes is what sun_path holds, and a path at the limit makes an address")
    func limitIsTheKernels() throws {
        #expect(SocketPath.maximumBytes == UnixSocketAddress.pathCapacity - 1)
        let longest = "/" + String(repeating: "s", count: SocketPath.maximumBytes - 1)
        #expect(SocketPath.expectation(for: longest, absolute: true) == nil)
        _ = try UnixSocketAddress(path: longest)
        let tooLong = longest + "s"
        #expect(SocketPath.expectation(for: tooLong, absolute: true) == "an absolute path of at most 107 bytes")
        #expect(throws: UnixSocketAddress.AddressError.self) { try UnixSocketAddress(path: tooLong) }
    }

    @Test("a daemon's socket is absolute; a client's may be relative")
    func absoluteForDaemons() {
        #expect(SocketPath.expectation(for: "x.sock", absolute: true) == "an absolute path of at most 107 bytes")
        #expect(SocketPath.expectation(for: "x.sock", absolute: false) == nil)
        #expect(SocketPath.expectation(for: "", absolute: false) == "a path of 1 to 107 bytes")
    }

    /// Every path SocketPath accepts (for a client: relative allowed) makes an address,
    /// and every path it refuses does not: one rule on both sides of the programs.
    @Test("SocketPath accepts exactly the paths UnixSocketAddress can build", arguments: [
        "", "x", "/", "/run/pathd/pathd.sock", "relative/pathd.sock", "/tmp/a\0b", "\0", "/run/pathd.sock\0",
        "/" + String(repeating: "s", count: 106), "/" + String(repeating: "s", count: 107),
        "/" + String(repeating: "é", count: 53), "/" + String(repeating: "é", count: 54),
    ])
    func oneRule(path: String) {
        let accepted = SocketPath.expectation(for: path, absolute: false) == nil
        let built: Bool
        do {
            _ = try UnixSocketAddress(path: path)
            built = true
        } catch {
            built = false
        }
        #expect(accepted == built, "\(path.debugDescription): SocketPath \(accepted), UnixSocketAddress \(built)")
    }

    @Test("a NUL byte is refused with its own words")
    func nulIsRefused() {
        #expect(SocketPath.expectation(for: "/run/a\0b", absolute: true) == "a path with no NUL byte")
        #expect(SocketPath.expectation(for: "a\0", absolute: false) == "a path with no NUL byte")
    }
}
