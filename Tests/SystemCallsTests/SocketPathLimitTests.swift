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
}
