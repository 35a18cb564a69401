// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathDaemon
import PathModel
import ServiceSupport
import SystemCalls
import Testing

/// What the test process (which runs the daemon in-process) uses: memory and descriptors.
enum ProcessResources {
    /// Resident set size in bytes: the second field of /proc/self/statm, in pages (proc(5)).
    static func residentBytes() throws -> Int {
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0, "cannot open /proc/self/statm: errno \(errno)")
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        try #require(count > 0, "cannot read /proc/self/statm: errno \(errno)")
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        let pages = try #require(fields.count > 1 ? Int(fields[1]) : nil, "unexpected /proc/self/statm")
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// Raises the soft RLIMIT_NOFILE to the hard limit (as pathd does at start) and
    /// returns the soft limit now in force.
    static func raiseDescriptorLimit() throws -> Int {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, "getrlimit: errno \(errno)")
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, "setrlimit: errno \(errno)")
        }
        return Int(clamping: limit.rlim_cur)
    }
}

/// Captures the daemon's log lines through a pipe, for tests that check what it logs.
final class LogCapture {
    let logger: Logger
    private let readEnd: Int32
    private let writeEnd: Int32
    private var captured: [UInt8] = []

    init(threshold: LogLevel = .warning) throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0, "pipe: errno \(errno)")
        readEnd = ends[0]
        writeEnd = ends[1]
        // Non-blocking at both ends: a full pipe must never stall the daemon's queue
        // (the logger drops a line it cannot write); tests drain it with `text()`.
        for end in ends {
            try #require(fcntl(end, F_SETFL, O_NONBLOCK) == 0 && fcntl(end, F_SETFD, FD_CLOEXEC) == 0,
                         "fcntl: errno \(errno)")
        }
        logger = Logger(threshold: threshold, descriptor: FileDescriptor(rawValue: writeEnd), journalPrefixes: false)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Everything logged so far. The daemon logs on its queue before it acts, so after
    /// a `queue.sync` that observed the action, the line is in the pipe.
    func text() -> String {
        drain()
        return String(decoding: captured, as: UTF8.self)
    }

    /// Moves what is in the pipe into `captured`, so the pipe never fills during a long test.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            captured += buffer[0..<count]
        }
    }
}
