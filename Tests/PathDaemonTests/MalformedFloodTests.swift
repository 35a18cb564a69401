// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Synchronization
import Testing

extension LoadAndAbuse {
    @Suite("malformed flood")
    struct MalformedFloodTests {
        @Test("10,000 malformed lines: one error each, everyone else served, memory flat")
        func tenThousandMalformedLines() throws {
            let harness = try DaemonHarness()
            defer { harness.stop() }
            let (other, first) = try harness.connectAndSubscribe()
            let corpus = MalformedCorpus(count: 10_000)
            let attacker = try RawClient(path: harness.socketPath)
            // Warm up allocator and code paths, then measure.
            try attacker.write(Array(#"{"op":"warm-up"}"#.utf8) + [UInt8(ascii: "\n")])
            guard case .error(.unknownOp, _, _) = try attacker.next() else {
                Issue.record("no error for the warm-up line")
                return
            }
            let residentBefore = try ProcessResources.residentBytes()

            // Write on another thread while this one reads the replies: the daemon stops
            // reading a client whose replies pile up, so a writer alone would stall.
            let writeFailure = Mutex<String?>(nil)
            let written = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                do {
                    try corpus.send { try attacker.write($0) }
                    try attacker.write(Request(.ping, id: .string("end")).encoded())
                } catch {
                    writeFailure.withLock { $0 = "\(error)" }
                }
                written.signal()
            }
            var counts: [ErrorCode: Int] = [:]
            while true {
                let message = try attacker.next()
                if case .error(let code, _, _) = message {
                    counts[code, default: 0] += 1
                } else {
                    #expect(message == .pong(id: .string("end")))
                    break
                }
            }
            #expect(written.wait(timeout: .now() + 60) == .success, "the writer never finished")
            #expect(writeFailure.withLock { $0 } == nil)
            #expect(counts.values.reduce(0, +) == corpus.entries.count)
            #expect(counts == corpus.expectedCounts)

            // The attacker's connection still works, and so does everyone else's.
            try attacker.write(Request(.status(.any), id: .integer(1)).encoded())
            guard case .path(_, .integer(1)) = try attacker.next() else {
                Issue.record("status after the flood did not answer")
                return
            }
            harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
            let change = try other.nextPath().update
            #expect(change.sequence == first.sequence + 1)
            #expect(change.path.unsatisfiedReason == .noCarrier)

            let growth = try ProcessResources.residentBytes() - residentBefore
            print("10,000 malformed lines: RSS grew by \(growth / 1024) KiB")
            // RSS is the whole test process's, and kernel tests run beside this one (the
            // hostile-lines drill alone holds 10 MB while it runs): the bound leaves room
            // for them and still fails a leak of 3 KiB per line.
            #expect(growth < 32 << 20, "RSS grew by \(growth) bytes")
        }
    }
}
