import Foundation
import PathClient
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

@Suite("monitor start")
struct StartRetryTests {
    @Test("a monitor that fails to start is replaced by a new generation")
    func retriesWithNewGeneration() throws {
        let harness = try DaemonHarness(failingStarts: 2)
        defer { harness.stop() }
        let client = try harness.connect()
        #expect(client.hello?.generation == Generation(rawValue: 3))
        try client.send(Request(op: .status))
        let update = try client.nextPath().update
        #expect(update.generation == Generation(rawValue: 3))
        #expect(update.path.status == .satisfied)
        let replaced = harness.network.sources.prefix(2).allSatisfy { $0.isCancelled }
        #expect(replaced)
    }

    @Test("three failed starts in a row are fatal")
    func givesUp() throws {
        #expect(throws: DaemonHarness.StartFailed.self) {
            _ = try DaemonHarness(failingStarts: 3)
        }
    }
}
