// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathTestFixtures
import SystemCalls
import Testing

/// A `NOTIFY_SOCKET` the test opens, as systemd's manager end: a bound datagram socket
/// whose messages are read with a deadline.
private final class NotifySocket {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        let address = try UnixSocketAddress(path: path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError.posix("socket(SOCK_DGRAM)", errno: errno) }
        // A throw from here on closes the descriptor: deinit runs once every property is set.
        do {
            try address.withSockaddr { (pointer, length) throws(Errno) in
                _ = try syscall { bind(descriptor, pointer, length) }
            }
        } catch {
            throw HarnessError.posix("bind(\(path))", errno: error.rawValue)
        }
    }

    deinit { close(descriptor) }

    /// The next message, failing after `timeout`.
    func next(timeout: Duration = .seconds(10)) throws -> String {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(timeout.components.seconds * 1000))
        guard ready == 1 else { throw HarnessError("no sd_notify message within \(timeout)") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw HarnessError.posix("recv", errno: errno) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Messages until one satisfies `condition`; that one is returned.
    func waitFor(_ description: String, _ condition: (String) -> Bool) throws -> String {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let message = try next()
            if condition(message) { return message }
            seen.append(message)
        }
        throw HarnessError("no message that \(description); saw \(seen)")
    }
}

extension KernelTests {
    /// What pathd tells systemd, read from a NOTIFY_SOCKET the test opens (PID 1 is not
    /// systemd here), and how it marks its log lines for the journal.
    @Suite("service manager", .serialized)
    struct ServiceManagerTests {
        @Test("READY with the path as STATUS, RELOADING and READY around a reload, WATCHDOG, STOPPING")
        func notifications() throws {
            try withVethTopology { topology in
                let notify = try NotifySocket(path: topology.directory.path("notify.sock"))
                // 300 ms: pathd pets every 150 ms, so two pets arrive well within the deadline.
                let daemon = try topology.startDaemon(environment: ["NOTIFY_SOCKET": notify.path,
                                                                    "WATCHDOG_USEC": "300000"])
                let ready = try notify.waitFor("says READY=1") { $0.contains("READY=1") }
                #expect(ready.contains("STATUS=path: satisfied via vA"), "message: \(ready)")
                _ = try notify.waitFor("pets the watchdog") { $0 == "WATCHDOG=1" }
                _ = try notify.waitFor("pets the watchdog again") { $0 == "WATCHDOG=1" }

                try daemon.send(SIGHUP)
                let reloading = try notify.waitFor("says RELOADING=1") { $0.contains("RELOADING=1") }
                let microseconds = reloading.split(separator: "\n").first { $0.hasPrefix("MONOTONIC_USEC=") }
                    .flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) }
                #expect(microseconds.map { $0 > 0 } == true, "RELOADING=1 without MONOTONIC_USEC: \(reloading)")
                _ = try notify.waitFor("is ready again after the reload") { $0 == "READY=1" }

                try topology.a.ip("link", "set", "vA", "down")
                let status = try notify.waitFor("follows the path in STATUS") {
                    $0.hasPrefix("STATUS=path: unsatisfied")
                }
                #expect(status.contains("vA") || status.contains("no network interface"), "status: \(status)")

                try daemon.send(SIGTERM)
                _ = try notify.waitFor("says STOPPING=1") { $0 == "STOPPING=1" }
                #expect(try daemon.waitForExit() == .exit(0))
            }
        }

        @Test("without WATCHDOG_USEC, pathd never pets a watchdog")
        func noWatchdogUnlessAsked() throws {
            try withVethTopology { topology in
                let notify = try NotifySocket(path: topology.directory.path("notify.sock"))
                let daemon = try topology.startDaemon(environment: ["NOTIFY_SOCKET": notify.path])
                _ = try notify.waitFor("says READY=1") { $0.contains("READY=1") }
                try daemon.send(SIGTERM)
                // Everything pathd sent before STOPPING=1 is in order on the socket: no pet among it.
                let stopping = try notify.waitFor("says STOPPING=1") { message in
                    #expect(message != "WATCHDOG=1", "pathd pets a watchdog nobody asked for")
                    return message == "STOPPING=1"
                }
                #expect(stopping == "STOPPING=1")
            }
        }

        @Test("log lines carry priority prefixes only when stderr is the stream JOURNAL_STREAM names")
        func journalPrefixes() throws {
            try withVethTopology { topology in
                // The stderr file exists before pathd starts, so its device and inode are known.
                let stderrPath = topology.nextStderrPath
                try #require(FileManager.default.createFile(atPath: stderrPath, contents: nil))
                var info = stat()
                try #require(stat(stderrPath, &info) == 0)
                let daemon = try topology.startDaemon(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
                try daemon.terminate()
                let lines = try daemon.stderr.split(separator: "\n")
                #expect(lines.contains { $0.hasPrefix("<6>pathd ") }, "stderr: \(lines)")
                #expect(lines.allSatisfy { $0.first == "<" }, "every line carries a priority: \(lines)")

                // Inherited, but naming another stream (stderr redirected): no prefixes.
                let other = try topology.startDaemon(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
                try other.terminate()
                let plain = try other.stderr.split(separator: "\n")
                #expect(plain.contains { $0.hasPrefix("pathd ") }, "stderr: \(plain)")
                #expect(!plain.contains { $0.first == "<" }, "stderr: \(plain)")
            }
        }

        @Test("a fatal start-up error carries its priority when stderr is the journal")
        func fatalErrorPrefixed() throws {
            try withVethTopology { topology in
                let stderrPath = topology.nextStderrPath
                try #require(FileManager.default.createFile(atPath: stderrPath, contents: nil))
                var info = stat()
                try #require(stat(stderrPath, &info) == 0)
                let daemon = try topology.launchDaemon(arguments: ["--config", topology.directory.path("missing.conf")],
                                                       environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
                #expect(try daemon.waitForExit() == .exit(1))
                let lines = try daemon.stderr.split(separator: "\n")
                #expect(lines.contains { $0.hasPrefix("<3>pathd: ") }, "stderr: \(lines)")
            }
        }
    }
}
