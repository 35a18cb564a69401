// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// `pathctl history` against the real daemon, its file in a state directory of the test's.
    @Suite("path history", .serialized)
    struct PathHistory {
        /// pathd with `STATE_DIRECTORY` set, as `StateDirectory=pathd` sets it.
        static func start(_ topology: VethTopology, state: String) throws -> (DaemonProcess, Subscriber) {
            let daemon = try topology.startDaemon(environment: ["STATE_DIRECTORY": state])
            let subscriber = try topology.subscribe()
            // Settled: vA's network identified (pathd resolves the gateway), so that every
            // later change is recorded on it.
            try subscriber.waitFor("satisfied through vA, its network settled", PathLine.settled(through: "vA"))
            return (daemon, subscriber)
        }

        static func stateDirectory(_ topology: VethTopology) throws -> String {
            let state = topology.directory.path("state")
            if !FileManager.default.fileExists(atPath: state) {
                try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            }
            return state
        }

        /// Every path line a subscriber of the default path received has its `change` entry
        /// in `entries`, in the order received; the last line may lack it, because pathd
        /// appends the entry right after it sends the line (PathPublisher.publishChanges:
        /// no subscriber waits for the history's write), and a kill can fall between the two.
        /// The path line right after a `resync` line may repeat the path, and then has no
        /// entry of its own.
        static func expectRecorded(_ published: [[String: Any]], in entries: [NSDictionary]) {
            let changes = entries.filter { $0["event"] as? String == "change" }
            var next = changes.startIndex
            var afterResync = false
            var checked = 0
            let lastPath = published.lastIndex { PathLine.isPath($0) }
            for (index, line) in published.enumerated() {
                if line["type"] as? String == "resync" { afterResync = true }
                guard PathLine.isPath(line) else { continue }
                defer { afterResync = false }
                guard !afterResync else { continue }
                let generation = line["generation"] as? Int
                let sequence = line["sequence"] as? Int
                guard let found = changes[next...].firstIndex(where: {
                    $0["generation"] as? Int == generation && $0["sequence"] as? Int == sequence
                }) else {
                    if index == lastPath { break }
                    let missing = "generation \(generation ?? -1) sequence \(sequence ?? -1) was published but is not "
                        + "in the history after the entries already matched; history:\n\(changes)"
                    Issue.record(Comment(rawValue: missing))
                    return
                }
                #expect(changes[found]["status"] as? String == PathLine.status(line)
                        && changes[found]["unsatisfiedReason"] as? String == PathLine.unsatisfiedReason(line),
                        "entry \(changes[found]) for the line \(line)")
                next = changes.index(after: found)
                checked += 1
            }
            // The subscription's first line and the burst's "no route" at least.
            #expect(checked >= 2, "lines published: \(published)")
        }

        @Test("a flapped default route and a flapped carrier are listed as two outages, each with its reason")
        func flaps() throws {
            try withVethTopology { topology in
                let (_, subscriber) = try Self.start(topology, state: try Self.stateDirectory(topology))
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("no route", PathLine.unsatisfied(reason: "noRoute"))
                try topology.addDefaultRoute()
                try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
                try topology.b.ip("link", "set", "vB", "down")
                try subscriber.waitFor("no carrier", PathLine.unsatisfied(reason: "noCarrier"))
                try topology.b.ip("link", "set", "vB", "up")
                // The kernel flushed nothing on a carrier loss; the route is back with the carrier.
                try subscriber.waitFor("satisfied after the carrier", PathLine.satisfied(through: "vA"))

                let result = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "history"])
                #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
                let lines = result.stdout.split(separator: "\n").map(String.init)
                let outages = lines.filter { $0.hasPrefix("  offline ") }
                #expect(outages.count == 2, "stdout:\n\(result.stdout)")
                #expect(outages.first?.hasSuffix(": no route to the Internet (no default route)") == true, "\(outages)")
                #expect(outages.last?.hasSuffix(": no carrier on vA (cable unplugged or peer down)") == true,
                        "\(outages)")
                // "offline 1.2 s, 20:22:39–20:22:40 on 5d93bd96d13d: …" (vA's network, by its gateway's MAC)
                let outageLine = /^  offline [0-9.]+ s, \d\d:\d\d:\d\d–\d\d:\d\d:\d\d on \S+:/
                for outage in outages {
                    #expect(outage.firstMatch(of: outageLine) != nil, "\(outage)")
                }
                #expect(result.stdout.firstMatch(of: #/\n2 outages, all on \S+, offline /#) != nil,
                        "stdout:\n\(result.stdout)")
                #expect(!result.stdout.contains("in memory only"), "stdout:\n\(result.stdout)")
            }
        }

        /// The complete lines of a history file that parse as JSON objects (a torn last line aside).
        static func entries(in file: String) throws -> [NSDictionary] {
            let written = try Data(contentsOf: URL(fileURLWithPath: file))
            return written.split(separator: UInt8(ascii: "\n"),
                                 omittingEmptySubsequences: false).dropLast().compactMap {
                do {
                    return try JSONSerialization.jsonObject(with: Data($0)) as? NSDictionary
                } catch {
                    return nil  // a line being written is complete only at its newline
                }
            }
        }

        @Test("""
            kill -9 in the middle of a burst of changes: after a restart the history before the kill is intact, then \
            an unknown gap
            """)
        func killedMidBurst() throws {
            try withVethTopology { topology in
                let state = try Self.stateDirectory(topology)
                let (daemon, subscriber) = try Self.start(topology, state: state)
                // One `ip -batch` reads the burst from a FIFO that the test writes and closes:
                // it cannot end before the test says so, so pathd is stopped and killed in
                // the middle of the burst by construction, however fast either of them runs.
                let batch = try BatchFIFO(path: topology.directory.path("flaps.fifo"))
                let burst = try ChildProcess(Command.find("ip"),
                                             ["-netns", topology.a.name, "-force", "-batch", batch.path],
                                             stderrPath: topology.directory.path("burst.stderr"))
                let delete = "route del default\n"
                let add = "route add default via \(VethTopology.routerAddress)\n"
                // The first part ends without a default route, so pathd publishes at least
                // that change whatever it coalesces; it may be anywhere in the rest when stopped.
                try batch.write(delete + String(repeating: add + delete, count: 100))
                let noRoute = try subscriber.waitFor("no route, in the first part of the burst",
                                                     PathLine.unsatisfied(reason: "noRoute"))
                // pathd appends its entry right after it sends the line: wait for it, so that
                // the file holds a change of the burst when pathd is stopped.
                try waitUntil("the history file holds the no route line's entry") {
                    try Self.entries(in: state + "/history.jsonl").contains {
                        $0["generation"] as? Int == noRoute["generation"] as? Int
                            && $0["sequence"] as? Int == noRoute["sequence"] as? Int
                    }
                }
                try daemon.send(SIGSTOP)
                // The rest (the pipe holds all of it, about 48 KiB, even if ip read nothing)
                // reaches the kernel while pathd cannot read it.
                try batch.write(String(repeating: add + delete, count: 800) + add)
                #expect(burst.isRunning, "ip ended before the burst was written whole: see burst.stderr")
                batch.close()
                #expect(burst.wait(until: Date().addingTimeInterval(60)) == .exit(0), "the burst did not finish")
                try daemon.kill()
                #expect(try topology.hasDefaultRoute, "the burst ends with a default route")

                // Every line pathd sent before it was stopped, read to the end of the connection.
                let published = try subscriber.linesUntilClosed("the lines pathd sent before it was killed")
                let file = state + "/history.jsonl"
                let written = try Data(contentsOf: URL(fileURLWithPath: file))
                // Every complete line written before the kill (a torn last one aside).
                let complete = written.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
                    .map { line -> NSDictionary? in
                        do {
                            return try JSONSerialization.jsonObject(with: Data(line)) as? NSDictionary
                        } catch {
                            return nil  // counted: the expectation below fails on any such line
                        }
                    }
                #expect(complete.count >= 3 && !complete.contains { $0 == nil },
                        "\(complete.count) lines before the kill")
                Self.expectRecorded(published, in: complete.compactMap { $0 })

                subscriber.close()
                let (_, _) = try Self.start(topology, state: state)
                let json = try Command.check(BuiltProduct.url("pathctl"),
                                             ["--socket", topology.socketPath, "history", "--json"])
                let reply = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                let entries = try #require(reply["entries"] as? [NSDictionary])
                #expect(reply["persistent"] as? Bool == true)
                #expect(Array(entries.prefix(complete.count)) == complete.compactMap { $0 },
                        "the history before the kill changed")
                let restart = entries.dropFirst(complete.count).map { $0["event"] as? String }
                #expect(restart.first == "started" && !entries.contains { $0["event"] as? String == "stopped" },
                        "after the kill: \(restart)")

                let text = try Command.check(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "history"])
                #expect(text.contains(": pathd was not running (it ended without stopping)"), "\(text)")
                #expect(text.firstMatch(of: /\n  unknown [0-9.]+ (s|min)/) != nil, "\(text)")
            }
        }
    }
}

/// A FIFO that `ip -batch` reads commands from: it reaches end of file only when `close()`
/// is called. Opened read-write so that opening never blocks, whether or not ip has
/// opened it yet; writes larger than the pipe's 64 KiB would block until ip reads.
private final class BatchFIFO {
    let path: String
    private var descriptor: Int32

    init(path: String) throws {
        self.path = path
        guard mkfifo(path, 0o600) == 0 else { throw HarnessError.posix("mkfifo \(path)", errno: errno) }
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw HarnessError.posix("open \(path)", errno: errno) }
    }

    func write(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw HarnessError.posix("write \(path)", errno: errno)
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// The end of the batch. Idempotent.
    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}
