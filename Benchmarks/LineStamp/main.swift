// SPDX-License-Identifier: Apache-2.0
// pathd-linestamp: stamps each line of a stream the moment a blocking read returns it,
// for `make bench` (Benchmarks/bench.py), so that a line's time is when its reader woke,
// not when the Python harness got round to it (its select loop spends tens of
// microseconds on each wake-up, which landed in pathd − ip monitor whenever the two
// lines came close together).
//
//   pathd-linestamp                     read stdin (`ip monitor` piped in)
//   pathd-linestamp SOCKET REQUEST      connect to pathd's SOCKET, send the REQUEST line
//
// stdout: "NS LINE" per line read, NS being CLOCK_MONOTONIC in nanoseconds (the clock
// bench.py reads) taken when the read that completed the line returned. Each output line
// is one write(2). Ends at end of input.
import Glibc

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func fail(_ message: String) -> Never {
    let bytes = Array("pathd-linestamp: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return false }
        offset += written
    }
    return true
}

/// The descriptor to read: stdin, or a connection to pathd that has sent the request.
func input() -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 3 else { return 0 }
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let path = Array(arguments[1].utf8)
    guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { fail("socket path too long") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (offset, byte) in path.enumerated() { raw[offset] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else { fail("connect \(arguments[1]): \(String(cString: strerror(errno)))") }
    guard writeAll(descriptor, Array((arguments[2] + "\n").utf8)) else { fail("send the request") }
    return descriptor
}

let descriptor = input()
var chunk = [UInt8](repeating: 0, count: 64 * 1024)
var pending: [UInt8] = []
while true {
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    let stamp = monotonicNanoseconds()
    if count < 0 && errno == EINTR { continue }
    if count <= 0 { exit(0) }
    pending += chunk[..<count]
    var output: [UInt8] = []
    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        output += Array("\(stamp) ".utf8)
        output += pending[...newline]
        pending.removeSubrange(...newline)
    }
    if !output.isEmpty && !writeAll(1, output) { exit(1) }
}
