// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

extension LoadAndAbuse {
    @Suite("resync flood")
    struct ResyncFloodTests {
        @Test("a subscriber that never reads while resync lines pile up is disconnected, and the daemon says why")
        func stuckSubscriberUnderResyncs() throws {
            let log = try LogCapture()
            let harness = try DaemonHarness(configuration: .daemon { $0.clientQueueLimitBytes = 16 * 1024 },
                                            log: log.logger)
            defer { harness.stop() }
            let stuck = try harness.connect()
            try stuck.send(Request(.subscribe(.path(.any)), id: .string("stuck")))
            let reader = try harness.connect()
            try reader.send(Request(.subscribe(.path(.any)), id: .string("reader")))
            var last = try reader.nextPath().update
            // Each overrun sends every subscriber a resync line, never dropped, and the
            // path. The stuck client's socket buffer fills, then its queue passes 16 KiB.
            var overruns: Int64 = 0
            while harness.queue.sync(execute: { harness.service.clientCount }) == 2 {
                try #require(overruns < 20_000, "the stuck subscriber was never disconnected")
                harness.network.latest.overrun()
                overruns += 1
                // Not delayed: the reader gets the resync and the path of every overrun,
                // in order, before the next one is made.
                guard case .resync(_, let generation, .string("reader")) = try reader.next() else {
                    Issue.record("expected the reader's resync line after overrun \(overruns)")
                    return
                }
                let update = try reader.nextPath().update
                try #require(update.generation == generation)
                try #require(update.sequence == last.sequence + 1)
                last = update
                log.drain()
            }
            let logged = log.text()
            #expect(logged.contains("not reading"), "the log does not say why: \(logged.suffix(500))")
            #expect(logged.contains("disconnected"))
            #expect(throws: PathClientError.self) {
                // Whatever it had been sent, the stuck client's connection ends.
                while true { _ = try stuck.next() }
            }
            try reader.send(Request(.ping, id: .integer(overruns)))
            #expect(try reader.next() == .pong(id: .integer(overruns)))
        }
    }
}
