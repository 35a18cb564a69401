// SPDX-License-Identifier: Apache-2.0
// pathd-engine-bench: the client library's in-process engine (PathMonitor, mode
// .inProcess), timed from inside the process for `make bench` (Benchmarks/bench.py).
//
//   pathd-engine-bench
//
// stdout: "start NS" once, as the first thing main does, then "path NS STATUS V4 V6" per
// call of the path handler, NS being CLOCK_MONOTONIC in nanoseconds (the clock bench.py
// reads), STATUS the path's status, V4 and V6 1 or 0 (supportsIPv4, supportsIPv6). Each
// line is one write(2), so a reader sees it as soon as the handler ran. End of stdin
// cancels the monitor and exits 0.
import Dispatch
import Glibc
import PathClient

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// One write(2) of the whole line; a failed write ends the program (bench.py went away).
func emit(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    let written = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    if written != bytes.count { exit(1) }
}

emit("start \(monotonicNanoseconds())")
let queue = DispatchQueue(label: "pathd-engine-bench")
let monitor = PathMonitor(mode: .inProcess)
monitor.pathUpdateHandler = { path in
    let stamp = monotonicNanoseconds()
    emit("path \(stamp) \(path.status.rawValue) \(path.supportsIPv4 ? 1 : 0) \(path.supportsIPv6 ? 1 : 0)")
}
monitor.start(queue: queue)
while readLine() != nil {}
monitor.cancel()
exit(0)
