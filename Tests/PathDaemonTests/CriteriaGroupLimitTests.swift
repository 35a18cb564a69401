// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Foundation
@testable import PathDaemon
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// Criteria name networks by ID, so a client can ask about countless distinct criteria:
/// pathd keeps the default's group and every subscribed one current, and at most
/// `PathPublisher.maximumIdleGroups` others, which no change evaluates.
@Suite("criteria groups nobody subscribes to are bounded", .blocking)
struct CriteriaGroupLimitTests {
    static func networkID(_ number: Int) -> String { String(format: "%032x", number) }

    /// Asks `asker` for the status of `count` distinct networks, one request at a time:
    /// the replies, in order.
    static func askAboutNetworks(_ count: Int, on asker: PathConnection) throws -> [PathUpdate] {
        try (0..<count).map { number in
            try asker.send(Request(.status(Criteria(requiredNetwork: networkID(number))), id: .integer(Int64(number))))
            return try asker.nextPath().update
        }
    }

    /// The publisher's group counts, read on the state queue.
    static func counts(_ harness: DaemonHarness) -> (all: Int, idle: Int) {
        harness.queue.sync { harness.service.publisher.groupCounts }
    }

    @Test("a thousand status requests naming network IDs leave at most the bound of idle groups; pathd serves on")
    func statusFloodIsBounded() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        let asker = try harness.connect()
        for reply in try Self.askAboutNetworks(1000, on: asker) {
            #expect(reply.path.status == .unsatisfied, "\(reply)")
        }
        let counts = Self.counts(harness)
        #expect(counts.idle == PathPublisher.maximumIdleGroups, "\(counts)")
        #expect(counts.all == PathPublisher.maximumIdleGroups + 1, "the default's group and the idle ones: \(counts)")

        // The subscriber of the default path still gets its line for a change.
        let next = try harness.flapCarrier(1, readingOn: subscriber, after: first)
        #expect(next.sequence == first.sequence + 1)
    }

    @Test("an idle group is brought up to date when asked: the new path under a new sequence, only then")
    func idleGroupAskedAgain() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        let asker = try harness.connect()
        let free = Criteria(prohibitExpensivePaths: true)
        try asker.send(Request(.status(free)))
        let before = try asker.nextPath().update
        #expect(before.path.status == .satisfied, "\(before)")

        _ = try harness.flapCarrier(1, readingOn: subscriber, after: first)
        try asker.send(Request(.status(free)))
        let after = try asker.nextPath().update
        #expect(after.path.status == .unsatisfied && after.sequence == before.sequence + 1, "\(after)")
        try asker.send(Request(.status(free)))
        #expect(try asker.nextPath().update.sequence == after.sequence, "no change, no new sequence")
    }

    @Test("a subscribed group is kept current and never dropped; it becomes idle when its subscriber leaves")
    func subscribedGroupsStay() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        let held = try harness.connect()
        let free = Criteria(prohibitExpensivePaths: true)
        try held.send(Request(.subscribe(.path(free))))
        let heldFirst = try held.nextPath().update
        let asker = try harness.connect()
        _ = try Self.askAboutNetworks(PathPublisher.maximumIdleGroups + 10, on: asker)
        _ = try harness.flapCarrier(1, readingOn: subscriber, after: first)
        let heldNext = try held.nextPath().update
        #expect(heldNext.sequence == heldFirst.sequence + 1 && heldNext.path.status == .unsatisfied)
        #expect(Self.counts(harness).all == PathPublisher.maximumIdleGroups + 2)

        held.close()
        try waitUntil("the subscriber's group is idle") {
            Self.counts(harness).idle == PathPublisher.maximumIdleGroups
                && Self.counts(harness).all == PathPublisher.maximumIdleGroups + 1
        }
    }

    @Test("docs/PROTOCOL.md gives the bound the code has")
    func protocolDocumentGivesTheBound() throws {
        let text = try Repository.read("docs/PROTOCOL.md")
        #expect(text.contains("the \(PathPublisher.maximumIdleGroups) asked about last"))
    }
}
