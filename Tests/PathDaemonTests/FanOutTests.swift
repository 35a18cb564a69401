// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

extension LoadAndAbuse {
    @Suite("fan-out and disconnects")
    struct FanOutTests {
        @Test("1,000 subscribers each receive every change, in order, with contiguous sequences")
        func thousandSubscribers() throws {
            let subscriberCount = 1000
            let changeCount = 25
            // One process holds both ends of every connection, plus the harness's own.
            let limit = try ProcessResources.raiseDescriptorLimit()
            try #require(limit >= 2 * (subscriberCount + 1) + 64, "RLIMIT_NOFILE hard limit \(limit) is too low")
            let harness = try DaemonHarness()
            defer { harness.stop() }
            var subscribers: [PathConnection] = []
            for _ in 0..<subscriberCount {
                let subscriber = try harness.connect()
                try subscriber.send(Request(.subscribe(.path(.any))))
                subscribers.append(subscriber)
            }
            let canary = try harness.connect()
            try canary.send(Request(.subscribe(.path(.any)), id: .string("canary")))
            let first = try canary.nextPath().update
            // In lockstep with the canary: each change is published before the next one
            // is made, and 25 lines fit every socket buffer, so nothing collapses.
            var expected: [PathUpdate] = []
            for index in 0..<changeCount {
                harness.network.latest.emit([.linkChanged(index % 2 == 0 ? Fixture.eth0NoCarrier : Fixture.eth0())])
                let update = try canary.nextPath().update
                try #require(update.sequence == first.sequence + UInt64(index) + 1)
                expected.append(update)
            }
            #expect(harness.queue.sync { harness.service.clientCount } == subscriberCount + 1)
            for (number, subscriber) in subscribers.enumerated() {
                let initial = try subscriber.nextPath().update
                try #require(initial == first, "subscriber \(number) started elsewhere")
                var received: [PathUpdate] = []
                for _ in 0..<changeCount { received.append(try subscriber.nextPath().update) }
                try #require(received == expected, "subscriber \(number) missed or reordered a change")
            }
        }

        @Test("a burst over the client limit: each extra connection gets tooManyClients and is closed")
        func burstOverTheLimit() throws {
            let limit = 10
            let harness = try DaemonHarness(configuration: .daemon { $0.maximumClients = limit })
            defer { harness.stop() }
            let served = try (0..<limit).map { _ in try RawClient(path: harness.socketPath) }
            for round in 0..<200 {
                let extra = try RawClient(path: harness.socketPath, expectHello: false)
                guard case .error(.tooManyClients, _, nil) = try extra.next() else {
                    Issue.record("connection \(round) over the limit was not refused with tooManyClients")
                    return
                }
                #expect(throws: RawClient.Closed.self) { try extra.next() }
            }
            // Refused connections hold nothing: the served ones are all still answered.
            #expect(harness.queue.sync { harness.service.clientCount } == limit)
            for (index, client) in served.enumerated() {
                try client.write(Request(.ping, id: .integer(Int64(index))).encoded())
                #expect(try client.next() == .pong(id: .integer(Int64(index))))
            }
        }

        @Test("a client that disconnects while the daemon writes to it costs no SIGPIPE and is freed")
        func disconnectMidWrite() throws {
            let harness = try DaemonHarness()
            defer { harness.stop() }
            let victim = try RawClient(path: harness.socketPath)
            try victim.write(Request(.subscribe(.path(.any))).encoded())
            let (canary, first) = try harness.connectAndSubscribe()
            // About 350 bytes a line: 2,000 changes overfill the victim's socket buffer,
            // so the daemon holds a half-written or queued line for it (collapsed to the
            // newest path, so it stays connected).
            var last = try harness.flapCarrier(2000, readingOn: canary, after: first)
            #expect(harness.queue.sync { harness.service.clientCount } == 2)
            victim.closeNow()
            // Changes keep coming while the daemon finds the peer gone (EPIPE on send,
            // end of file on receive). A SIGPIPE would kill this test process.
            last = try harness.flapCarrier(200, readingOn: canary, after: last)
            let deadline = ContinuousClock.now + .seconds(10)
            while harness.queue.sync(execute: { harness.service.clientCount }) > 1 {
                try #require(ContinuousClock.now < deadline, "the daemon never dropped the closed client")
                last = try harness.flapCarrier(1, readingOn: canary, after: last)
            }
            try canary.send(Request(.ping, id: .string("alive")))
            #expect(try canary.next() == .pong(id: .string("alive")))
        }
    }
}
