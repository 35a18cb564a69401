// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/PERFORMANCE.md, "Hostile local users": what one local user does never costs another its answer. The hostile
    /// clients are scripts/test/hostile-client.py run as nobody (`HostileClient`); the
    /// well-behaved ones run as root. Every wait is for an event (a reply, a path line, a
    /// send that hits EAGAIN) with a deadline that fails the test; nothing is timed.
    /// Sizes are scaled down from the issue where the old daemon (9e8ee03) still failed
    /// at the smaller size; each test says so.
    @Suite("Hostile local users", .serialized)
    struct HostileClients {
        // MARK: 1. pipelining

        /// Replies of about 8 KB (40 links): 400 of them are 3 MB, far past what the
        /// old daemon queued before calling the client "not reading" (it answered 49).
        @Test("400 pipelined interfaces requests read late: every large reply arrives, in order")
        func pipelinedInterfaces() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.addVethLinks(pairs: 20)
                try topology.startDaemon()
                let summary = try HostileClient(topology, mode: "pipeline", ["--op", "interfaces", "--count", "400"])
                    .finish()
                try Self.expectEveryReplyInOrder(summary)
                #expect((summary["largestReply"] as? Int ?? 0) > 4096, "summary: \(summary)")
            }
        }

        /// 20,000 rather than the issue's 100,000: the old daemon lost replies after 167.
        @Test("20,000 pipelined status requests read late: every reply arrives, in order")
        func pipelinedStatus() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.startDaemon()
                let summary = try HostileClient(topology, mode: "pipeline", ["--op", "status", "--count", "20000"])
                    .finish()
                try Self.expectEveryReplyInOrder(summary)
            }
        }

        // MARK: 2. one large reply

        /// 1,400 links make one `interfaces` line of about 250 KB: larger than
        /// ClientQueueLimit=4K plus everything the socket buffer holds, so most of it
        /// waits in the daemon's queue while the client does not read.
        @Test("an interfaces reply larger than ClientQueueLimit= is delivered, not taken for not reading")
        func replyLargerThanQueueLimit() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                let config = topology.directory.path("pathd.conf")
                try "[Daemon]\nClientQueueLimit=4K\n".write(toFile: config, atomically: true, encoding: .utf8)
                try topology.addVethLinks(pairs: 700)
                try topology.startDaemon(arguments: ["--config", config])
                let summary = try HostileClient(topology, mode: "pipeline", ["--op", "interfaces", "--count", "1"])
                    .finish()
                try Self.expectEveryReplyInOrder(summary)
                let socketBuffer = try Int(String(contentsOfFile: "/proc/sys/net/core/wmem_default", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                #expect((summary["largestReply"] as? Int ?? 0) > 4096 + socketBuffer,
                        "the reply should not fit into the limit plus the socket buffer; summary: \(summary)")
            }
        }

        // MARK: 3. end of input

        @Test("200 status requests, then shutdown(SHUT_WR): 200 replies, then end of file")
        func halfCloseDrains() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.startDaemon()
                let summary = try HostileClient(topology, mode: "half-close", ["--count", "200"]).finish()
                #expect(summary["replies"] as? Int == 200, "summary: \(summary)")
                #expect(summary["inOrder"] as? Bool == true, "summary: \(summary)")
                #expect(summary["endOfFile"] as? Bool == true, "summary: \(summary)")
                #expect(summary["trailingBytes"] as? Int == 0, "summary: \(summary)")
            }
        }

        @Test("a last request without its newline, then shutdown(SHUT_WR): it is answered")
        func lastLineWithoutNewline() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.startDaemon()
                let summary = try HostileClient(topology, mode: "half-close",
                                                ["--count", "1", "--last-without-newline"])
                    .finish()
                #expect(summary["replies"] as? Int == 2, "summary: \(summary)")
                #expect(summary["lastAnswered"] as? Bool == true, "summary: \(summary)")
                #expect(summary["endOfFile"] as? Bool == true, "summary: \(summary)")
            }
        }

        // MARK: 4. subscriptions

        /// "Meanwhile": the spammer holds back its last request until root's status is
        /// answered, so its connection still has work outstanding when root asks.
        @Test("""
            20,000 subscribes and 5,000 unknown unsubscribes from nobody: 64 subscriptions, limitExceeded and \
            unknownSubscription for the rest, root answered meanwhile
            """)
        func subscriptionSpam() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.startDaemon()
                let spam = try HostileClient(topology, mode: "subscribe-spam",
                                             ["--subscribes", "20000", "--unsubscribes", "5000"])
                try spam.waitFor("busy")
                try Self.expectRootStatusAnswered(topology)
                let summary = try spam.finish()
                try Self.expectEveryReplyInOrder(summary)
                #expect(summary["subscribed"] as? Int == 64, "summary: \(summary)")
                #expect(summary["lastSubscribed"] as? Int == 63, "summary: \(summary)")
                #expect(summary["refused"] as? Int == 20000 - 64, "summary: \(summary)")
                #expect((summary["codes"] as? [String: Int])?["unknownSubscription"] == 5000, "summary: \(summary)")
            }
        }

        // MARK: 5. memory

        /// 200 rather than the issue's 1,500 ids of 60 KB (the old daemon grew by 24 MiB
        /// with 200). The bound: a connection holds at most one request line (64 KiB), one
        /// read (16 KiB), the replies waiting while its reading is paused (half of
        /// ClientQueueLimit=, 128 KiB) and the 60 KB string a line parses into — about
        /// 300 KiB — and malloc may keep such a peak in each of the few arenas the
        /// state queue's worker threads use. 8 MiB is that with room to spare, and a
        /// third of what the old daemon needed for 200 ids.
        @Test("""
            200 subscribes with 60 KB ids: limitExceeded, and pathd's RSS stays within 8 MiB of idle, also after the \
            connection closed
            """)
        func longIDsBounded() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                let pid = try topology.startDaemon().pid
                let idle = try ProcessReading.residentKiB(of: pid)
                let bound = 8 * 1024

                let client = try HostileClient(topology, mode: "long-ids", ["--count", "200", "--id-bytes", "60000"])
                let answered = try client.waitFor("answered")
                try Self.expectEveryReplyInOrder(answered)
                #expect((answered["codes"] as? [String: Int])?["limitExceeded"] == 200, "summary: \(answered)")
                let connected = try ProcessReading.residentKiB(of: pid)
                #expect(connected - idle <= bound, "RSS \(idle) KiB idle, \(connected) KiB with the connection open")
                // The script holds its connection open until told: one of these is it.
                let descriptors = try ProcessReading.openDescriptors(of: pid)

                _ = try client.finish()
                try waitUntil("pathd closed the hostile connection") {
                    try ProcessReading.openDescriptors(of: pid) < descriptors
                }
                let closed = try ProcessReading.residentKiB(of: pid)
                #expect(closed - idle <= bound, "RSS \(idle) KiB idle, \(closed) KiB after the connection closed")
            }
        }

        // MARK: 6. empty lines

        /// The streams run until told to stop, which happens only after the path line
        /// arrived: `capReached` false means the daemon turned to the kernel's news
        /// while it still had their bytes to read.
        @Test("eight streams of empty lines from nobody: a root subscriber gets a route change while they still stream")
        func emptyLineStreams() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                let subscriber = try topology.startSatisfied()
                let streams = try (0..<8).map { _ in
                    try HostileClient(topology, mode: "empty-lines", ["--cap", String(1 << 40)])
                }
                for stream in streams { try stream.waitFor("streaming") }

                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied while the streams run", PathLine.unsatisfied(reason: "noRoute"))

                for stream in streams {
                    let summary = try stream.finish()
                    #expect(summary["capReached"] as? Bool == false, "summary: \(summary)")
                    #expect(summary["stoppedByCaller"] as? Bool == true, "summary: \(summary)")
                    #expect(summary["answered"] as? Bool == true, "the stream's connection must still work: \(summary)")
                }
            }
        }

        // MARK: 7. connections

        @Test("""
            1,024 connections from nobody: 128 get hello, the rest tooManyClients as their first line; root's status \
            works meanwhile
            """)
        func connectionsPerUser() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.startDaemon()
                let crowd = try HostileClient(topology, mode: "connections", ["--count", "1024"])
                let connected = try crowd.waitFor("connected")
                let first = connected["firstLines"] as? [String: Int] ?? [:]
                #expect(first == ["hello": 128, "tooManyClients": 896], "first lines: \(connected)")
                #expect(connected["closedAfterRefusal"] as? Int == 896, "summary: \(connected)")
                try Self.expectRootStatusAnswered(topology)
                _ = try crowd.finish()
            }
        }

        // MARK: all at once

        /// Everything above at once, from nobody, in one namespace: pipelined interfaces
        /// and status, subscription spam, four empty-line streams and a crowd taking the
        /// rest of nobody's connections. Root's client and subscriber are served, in order.
        @Test("under all of it at once, root's status is answered and a route change reaches a subscriber, in order")
        func everythingAtOnce() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.addVethLinks(pairs: 20)
                try topology.startDaemon()
                let subscriber = try topology.subscribe()
                let initial = try subscriber.waitFor("satisfied") {
                    PathLine.satisfied(through: "vA")($0) && PathLine.hasSettledNetwork($0)
                }

                let spam = try HostileClient(topology, mode: "subscribe-spam",
                                             ["--subscribes", "20000", "--unsubscribes", "5000"])
                let pipelines = try [
                    HostileClient(topology, mode: "pipeline", ["--op", "interfaces", "--count", "400"]),
                    HostileClient(topology, mode: "pipeline", ["--op", "status", "--count", "20000"]),
                ]
                let streams = try (0..<4).map { _ in
                    try HostileClient(topology, mode: "empty-lines", ["--cap", String(1 << 40)])
                }
                try spam.waitFor("busy")
                for stream in streams { try stream.waitFor("streaming") }
                let crowd = try HostileClient(topology, mode: "connections", ["--count", "1024"])
                let connected = try crowd.waitFor("connected")

                // The well-behaved client, pipelining three requests of its own.
                let client = try UnixConnection(connectingTo: topology.socketPath)
                defer { client.close() }
                let reader = LineReader(client)
                let deadline = Date().addingTimeInterval(30)
                try client.send(#"{"op":"status","id":1}"# + "\n" + #"{"op":"status","id":2}"# + "\n"
                                + #"{"op":"ping","id":3}"# + "\n")
                #expect(try reader.waitForLine(containing: "\"type\":\"hello\"",
                                               until: deadline).hasPrefix("{\"type\":\"hello\""))
                let replies = try (0..<3).map { _ in try reader.waitForLine(containing: "\"type\"", until: deadline) }
                #expect(replies[0].hasPrefix("{\"type\":\"path\"") && replies[0].hasSuffix(",\"id\":1}"), "\(replies)")
                #expect(replies[1].hasPrefix("{\"type\":\"path\"") && replies[1].hasSuffix(",\"id\":2}"), "\(replies)")
                #expect(replies[2] == "{\"type\":\"pong\",\"id\":3}", "\(replies)")

                try topology.deleteDefaultRoute()
                let lost = try subscriber.nextLine("the path after the route went", timeout: .seconds(30))
                #expect(PathLine.unsatisfied(reason: "noRoute")(lost), "line: \(lost)")
                try topology.addDefaultRoute()
                let back = try subscriber.nextLine("the path after the route came back", timeout: .seconds(30))
                #expect(PathLine.satisfied(through: "vA")(back), "line: \(back)")
                let sequences = [initial, lost, back].compactMap { $0["sequence"] as? Int }
                #expect(sequences.count == 3 && sequences == sequences.sorted() && Set(sequences).count == 3,
                        "sequences: \(sequences)")

                try client.send("{\"op\":\"status\",\"id\":4}\n")
                let after = try reader.waitForLine(containing: "\"type\"", until: deadline)
                #expect(after.contains("\"status\":\"satisfied\"") && after.hasSuffix(",\"id\":4}"), "reply: \(after)")

                // The hostile clients were all still at it, and each got what it asked for.
                for stream in streams {
                    let summary = try stream.finish()
                    #expect(summary["capReached"] as? Bool == false, "summary: \(summary)")
                    #expect(summary["answered"] as? Bool == true, "summary: \(summary)")
                }
                let summary = try spam.finish()
                try Self.expectEveryReplyInOrder(summary)
                #expect(summary["subscribed"] as? Int == 64, "summary: \(summary)")
                // Its subscriptions were told of the changes too (older lines may collapse into newer).
                #expect((summary["pushes"] as? Int ?? 0) >= 64, "summary: \(summary)")
                for pipeline in pipelines { try Self.expectEveryReplyInOrder(try pipeline.finish()) }
                let first = connected["firstLines"] as? [String: Int] ?? [:]
                #expect(first.keys.sorted() == ["hello", "tooManyClients"] && first.values.reduce(0, +) == 1024,
                        "first lines: \(connected)")
                #expect((first["hello"] ?? 0) <= 128, "first lines: \(connected)")
                _ = try crowd.finish()
            }
        }

        // MARK: helpers

        /// The script's summary of a pipelined conversation: every request answered by
        /// the reply it expects, in order, on a connection that stayed open.
        static func expectEveryReplyInOrder(_ summary: [String: Any],
                                            sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(summary["problem"] is NSNull, "summary: \(summary)", sourceLocation: sourceLocation)
            #expect(summary["endOfFile"] as? Bool == false, "the daemon closed: \(summary)",
                    sourceLocation: sourceLocation)
            let requests = try #require(summary["requests"] as? Int, sourceLocation: sourceLocation)
            #expect(summary["replies"] as? Int == requests, "summary: \(summary)", sourceLocation: sourceLocation)
        }

        /// `pathctl status` as root, which must be answered (and satisfied) before a deadline.
        static func expectRootStatusAnswered(_ topology: VethTopology,
                                             sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try Command.run(BuiltProduct.url("pathctl"),
                                         ["--socket", topology.socketPath, "status", "--json"],
                                         timeout: .seconds(30))
            #expect(result.termination == .exit(0), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stdout.contains("\"status\":\"satisfied\""), "stdout: \(result.stdout)",
                    sourceLocation: sourceLocation)
        }
    }
}

extension VethTopology {
    /// `pairs` veth pairs (down, no addresses) in namespace A: links that make the
    /// `interfaces` reply large (about 175 bytes each). Made before the daemon starts,
    /// they arrive in its first dump. Not bridges: removing a namespace with a thousand
    /// bridges holds the kernel's rtnl lock for about 20 s, for every test on the machine.
    func addVethLinks(pairs: Int) throws {
        try batchInA((0..<pairs).map { "link add xa\($0) type veth peer name xb\($0)" }, name: "links.batch")
    }
}

/// What /proc says about a process.
enum ProcessReading {
    /// VmRSS from /proc/PID/status, in KiB.
    static func residentKiB(of pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first,
              let kib = Int(value) else {
            throw HarnessError("no VmRSS in /proc/\(pid)/status")
        }
        return kib
    }

    /// How many descriptors the process has open (/proc/PID/fd).
    static func openDescriptors(of pid: pid_t) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }
}
