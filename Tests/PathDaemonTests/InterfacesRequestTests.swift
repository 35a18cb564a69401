// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

@Suite("interfaces request", .blocking)
struct InterfacesRequestTests {
    func interfaces(_ client: PathConnection, id: JSONValue) throws -> (Generation, [InterfaceReport]) {
        try client.send(Request(.interfaces, id: id))
        let message = try client.next()
        guard case .interfaces(let generation, let reports, let replyID) = message, replyID == id else {
            throw PathClientError("expected an interfaces reply, got \(message)")
        }
        return (generation, reports)
    }

    @Test("every link, why it is or is not usable, and it follows changes")
    func reportsFollowTheSnapshot() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        try client.send(Request(.subscribe(.path(.any)), id: .string("s")))
        _ = try client.nextPath()
        let (generation, reports) = try interfaces(client, id: .string("a"))
        #expect(generation == .first)
        #expect(reports.map(\.name) == ["lo", "eth0"])
        #expect(reports.map(\.unusableReason) == [.loopback, nil])
        #expect(reports.last?.addresses == [Fixture.onlineAddress])
        #expect(reports.last?.type == .wiredEthernet)

        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        // The subscription's line says the change was applied: ask only then.
        #expect(try client.nextPath().update.path.unsatisfiedReason == .noCarrier)
        let (_, after) = try interfaces(client, id: .integer(2))
        #expect(after.last?.unusableReason == .noCarrier)
        #expect(after.last?.operState == .lowerLayerDown)
    }

    @Test("criteria do not apply to interfaces")
    func criteriaRejected() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        try client.write(Array(#"{"op":"interfaces","id":1,"criteria":{"requiredInterfaceType":"wifi"}}"#.utf8) + [10])
        guard case .error(.badArgument, _, .integer(1)) = try client.next() else {
            Issue.record("expected badArgument")
            return
        }
    }
}
