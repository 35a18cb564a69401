// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
@testable import PathDaemon
import KernelState
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// `subscribe` with a `destination` against a daemon whose kernel is the fake network:
/// the first answer, a line per change of the judged answer and none for churn, one
/// lookup per watched destination per batch, the budgets, and what a bad destination does.
@Suite("route subscriptions", .blocking)
struct RouteSubscriptionTests {
    static let destination = Fixture.routeDestination
    static let satisfied = RouteReport(destination: destination, status: .satisfied, interface: Fixture.eth0Interface,
                                       source: Fixture.onlineAddress.address, gateway: Fixture.ip("198.51.100.1"),
                                       table: 254)

    @Test("the current answer at once, then a line when it changes and none for churn that does not change it")
    func changesOnly() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Self.destination, .success(Fixture.routeViaEth0))
        let client = try harness.connect()
        try client.send(Request(.subscribe(.route(destination: Self.destination)), id: .string("r")))
        let first = try client.nextRoute()
        #expect(first.update == RouteUpdate(generation: .first, sequence: 1, report: Self.satisfied))
        #expect(first.id == .string("r"))
        #expect(harness.network.watchedDestinations == [Self.destination])
        // Churn: a second address on eth0 changes neither the kernel's answer nor its judgement.
        harness.network.latest.emit([.addressChanged(Fixture.address("198.51.100.3"))])
        // The link under the route loses its carrier: the same answer, judged again. The
        // next line is the one right after the first.
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let noCarrier = try client.nextRoute().update
        #expect(noCarrier.sequence == 2)
        #expect(noCarrier.report.unsatisfiedReason == .noCarrier)
        #expect(noCarrier.report.reasonInterface == "eth0")
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        #expect(try client.nextRoute().update == RouteUpdate(generation: .first, sequence: 3, report: Self.satisfied))
        // Then the kernel's answer changes (last: a round still out may answer with it).
        harness.network.setRoute(to: Self.destination, .success(.rejected(.unreachable)))
        let rule = RoutingRule(family: .ipv4, priority: 100, action: .reject(.unreachable), hasOtherSelectors: true)
        harness.network.latest.emit([.ruleAdded(rule)])
        let rejected = try client.nextRoute().update
        #expect(rejected.sequence == 4)
        #expect(rejected.report.unsatisfiedReason == .routeRejects)
        #expect(rejected.report.interface == nil)
        try client.expectNothingPending()
    }

    @Test("a change's path line goes out while the watched routes' lookups are still out; their line follows")
    func pathLineFirst() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Self.destination, .success(Fixture.routeViaEth0))
        let watcher = try harness.connect()
        try watcher.send(Request(.subscribe(.route(destination: Self.destination)), id: .string("r")))
        #expect(try watcher.nextRoute().update.report == Self.satisfied)
        let bystander = try harness.connect()
        try bystander.send(Request(.subscribe(.path(.any)), id: .string("p")))
        _ = try bystander.nextPath()
        let gate = harness.network.holdNextLookup()
        var isOpen = false
        defer { if !isOpen { gate.signal() } }
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(harness.network.waitForLookup(), "the watched route was asked after the change")
        // The kernel has not answered the watched route yet: the path's line is out already.
        #expect(try bystander.nextPath().update.path.unsatisfiedReason == .noCarrier)
        gate.signal()
        isOpen = true
        #expect(try watcher.nextRoute().update.report.unsatisfiedReason == .noCarrier)
    }

    @Test("two subscribers of one destination cost one lookup per batch, and both get each line")
    func oneLookupPerDestination() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Self.destination, .success(Fixture.routeViaEth0))
        let first = try harness.connect()
        let second = try harness.connect()
        for client in [first, second] {
            try client.send(Request(.subscribe(.route(destination: Self.destination))))
            #expect(try client.nextRoute().update.sequence == 1)
        }
        // The second was answered from the first's answer, without asking the kernel.
        #expect(harness.network.lookedUp == [Self.destination])
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        for client in [first, second] {
            #expect(try client.nextRoute().update.report.unsatisfiedReason == .noCarrier)
        }
        #expect(harness.network.lookedUp == [Self.destination, Self.destination])
    }

    @Test("route subscriptions count in MaxSubscriptionsPerClient= with paths; unsubscribe ends the watch")
    func budget() throws {
        let harness = try DaemonHarness(configuration: .daemon { $0.maximumSubscriptionsPerClient = 2 })
        defer { harness.stop() }
        let other = Fixture.ip("192.0.2.77")
        let client = try harness.connect()
        try client.send(Request(.subscribe(.path(.any)), id: .string("p")))
        _ = try client.nextPath()
        try client.send(Request(.subscribe(.route(destination: Self.destination)), id: .string("a")))
        _ = try client.nextRoute()
        try client.send(Request(.subscribe(.route(destination: other)), id: .string("b")))
        guard case .error(.limitExceeded, _, .string("b")) = try client.next() else {
            Issue.record("expected limitExceeded")
            return
        }
        try client.send(Request(.unsubscribe, id: .string("a")))
        #expect(try client.next() == .unsubscribed(id: .string("a")))
        try client.send(Request(.subscribe(.route(destination: other)), id: .string("b")))
        #expect(try client.nextRoute().update.report.destination == other)
        // The source was told before the lookup: only the destination still watched.
        #expect(harness.network.watchedDestinations == [other])
        #expect(harness.queue.sync { harness.service.publisher.routes.count } == 1)
    }

    @Test("a first lookup that fails while another client's succeeds leaves that client's route watched")
    func concurrentFirstLookups() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Self.destination, .success(Fixture.routeViaEth0))
        harness.network.answerNext(Self.destination, [.failure(RouteLookupError("request socket is closed"))])
        let gate = harness.network.holdNextLookup()
        let failing = try RawClient(path: harness.socketPath)
        try failing.write(Request(.subscribe(.route(destination: Self.destination)), id: .integer(1)).encoded())
        #expect(harness.network.waitForLookup(), "the first lookup reached the kernel")
        let other = try harness.connect()
        try other.send(Request(.subscribe(.route(destination: Self.destination)), id: .integer(2)))
        // Both wait for the kernel before the first answer is let through: the order that
        // matters (polled: a request being handled sends no line).
        let deadline = ContinuousClock.now + .seconds(10)
        while harness.queue.sync(execute: {
            harness.service.admission.clients.values.filter(\.isAwaitingReply).count
        }) < 2 {
            try #require(ContinuousClock.now < deadline, "the second subscription was not handled")
            try await Task.sleep(for: .milliseconds(5))  // a poll interval, with the deadline above
        }
        gate.signal()
        guard case .error(.lookupFailed, _, .integer(1)) = try failing.next() else {
            Issue.record("expected lookupFailed")
            return
        }
        #expect(try other.nextRoute().update.report == Self.satisfied)
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try other.nextRoute().update.report.unsatisfiedReason == .noCarrier, "still watched")
        // Told after the answer, on the fake kernel's queue, and so before the batch just read.
        #expect(harness.network.watchedDestinations == [Self.destination])
    }

    @Test("a thousand route subscriptions on one connection: 64 are taken, the rest refused, nobody else disturbed")
    func thousandFromOneClient() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let bystander = try harness.connect()
        try bystander.send(Request(.subscribe(.path(.any)), id: .string("path")))
        let first = try bystander.nextPath().update
        let hostile = try RawClient(path: harness.socketPath)
        let lines = (0..<1000).map { index in
            Request(.subscribe(.route(destination: .v4(0x0A00_0000 + UInt32(index)))),
                    id: .integer(Int64(index))).encoded()
        }
        try hostile.write(lines.flatMap { $0 })
        var taken = 0
        var refused = 0
        for _ in 0..<1000 {
            switch try hostile.next() {
            case .routeUpdate: taken += 1
            case .error(.limitExceeded, _, _): refused += 1
            case let other: Issue.record("unexpected \(other)")
            }
        }
        #expect(taken == 64 && refused == 936)
        #expect(harness.network.watchedDestinations.count == 64)
        // The bystander's path still follows the kernel, and the hostile client is still served.
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let next = try bystander.nextPath().update
        #expect(next.sequence == first.sequence + 1 && next.path.unsatisfiedReason == .noCarrier)
        try hostile.write(Array(#"{"op":"ping","id":"still"}"#.utf8) + [10])
        var message = try hostile.next()
        while case .routeUpdate = message { message = try hostile.next() }
        #expect(message == .pong(id: .string("still")))
    }

    @Test("a zone that goes away is a reason, noInterface naming it, and the kernel is not asked about it")
    func zoneGoesAway() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let linkLocal = Fixture.ip("fe80::1")
        harness.network.setRoute(to: linkLocal, .success(.route(RouteAnswer(
            type: .unicast, outputInterface: Fixture.ethIndex, table: 254, preferredSource: Fixture.ip("fe80::2")))))
        let client = try harness.connect()
        try client.send(Request(.subscribe(.route(destination: linkLocal, interface: "eth0")), id: .integer(1)))
        #expect(try client.nextRoute().update.report.status == .satisfied)
        #expect(harness.network.lookedUpThrough == [Fixture.ethIndex])
        harness.network.latest.emit([.linkRemoved(Fixture.ethIndex)])
        let gone = try client.nextRoute().update.report
        #expect(gone.unsatisfiedReason == .noInterface)
        #expect(gone.reasonInterface == "eth0")
        #expect(gone.reason == "eth0 is gone or down (the zone of fe80::1%eth0)")
        #expect(harness.network.lookedUp == [linkLocal], "a zone naming no interface is not asked about")
        // A zone unknown when subscribing is refused, as for `route`.
        try client.send(Request(.subscribe(.route(destination: linkLocal, interface: "wlan9")), id: .integer(2)))
        guard case .error(.badArgument, let message, .integer(2)) = try client.next() else {
            Issue.record("expected badArgument")
            return
        }
        #expect(message.hasPrefix("no interface \"wlan9\""))
    }

    @Test("a resync sends the resync line, then the route again in the new generation")
    func resync() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Self.destination, .success(Fixture.routeViaEth0))
        let client = try harness.connect()
        try client.send(Request(.subscribe(.route(destination: Self.destination)), id: .string("r")))
        _ = try client.nextRoute()
        harness.network.latest.overrun()
        guard case .resync(_, let generation, .string("r")) = try client.next() else {
            Issue.record("expected a resync line with the subscription's id")
            return
        }
        let again = try client.nextRoute().update
        #expect(again.generation == generation)
        #expect(again.sequence == 2)
        #expect(again.report == Self.satisfied)
        #expect(harness.network.sources.count == 2)
        #expect(harness.network.watchedDestinations == [Self.destination], "the new source watches it too")
    }

    /// `count` route subscriptions on one connection, with ids 0…, to 198.51.100.0… (each
    /// satisfied via eth0), their first lines read.
    static func subscribe(_ count: Int, on harness: DaemonHarness) throws -> (PathConnection, [IPAddress]) {
        let destinations = (0..<count).map { IPAddress.v4(0xC633_6400 + UInt32($0)) }
        for destination in destinations { harness.network.setRoute(to: destination, .success(Fixture.routeViaEth0)) }
        let client = try harness.connect()
        for (index, destination) in destinations.enumerated() {
            try client.send(Request(.subscribe(.route(destination: destination)), id: .integer(Int64(index))))
            #expect(try client.nextRoute().update.report.status == .satisfied)
        }
        return (client, destinations)
    }

    @Test("a round longer than a part reaches every route; after a resync each gets its resync line, then its route")
    func roundInParts() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let count = RouteWatcher.routesPerPart * 2 + 3
        let (client, destinations) = try Self.subscribe(count, on: harness)
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        var noCarrier: Set<IPAddress> = []
        for _ in 0..<count {
            let report = try client.nextRoute().update.report
            #expect(report.unsatisfiedReason == .noCarrier)
            noCarrier.insert(report.destination)
        }
        #expect(noCarrier == Set(destinations))
        // The new generation's answers differ: each part's lines must still wait for the resync.
        for destination in destinations { harness.network.setRoute(to: destination, .success(.rejected(.unreachable))) }
        harness.network.latest.overrun()
        var resynced: Set<JSONValue> = []
        var again: Set<JSONValue> = []
        for _ in 0..<2 * count {
            switch try client.next() {
            case .resync(_, _, let id?):
                resynced.insert(id)
            case .routeUpdate(let update, let id?):
                #expect(resynced.contains(id), "the route line of \(id) came before its resync line")
                #expect(update.generation == Generation.first.next())
                #expect(update.report.unsatisfiedReason == .routeRejects)
                again.insert(id)
            case let other:
                Issue.record("unexpected \(other)")
            }
        }
        #expect(resynced.count == count && again.count == count)
        try client.expectNothingPending()
    }

    @Test("a resync that comes while a round's parts are out: no route line of the new generation before its resync")
    func resyncDuringRound() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let count = RouteWatcher.routesPerPart * 5 + 3
        let (client, destinations) = try Self.subscribe(count, on: harness)
        // The round's first part waits in the fake kernel while the source is lost; the new
        // source's dump is read behind the parts asked before it, ahead of those after.
        let gate = harness.network.holdNextLookup()
        var isOpen = false
        defer { if !isOpen { gate.signal() } }
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(harness.network.waitForLookup(), "the round was never asked")
        for destination in destinations { harness.network.setRoute(to: destination, .success(.rejected(.unreachable))) }
        harness.network.latest.overrun()
        gate.signal()
        isOpen = true
        var resynced: Set<JSONValue> = []
        var again: Set<JSONValue> = []
        while again.count < count {
            switch try client.next() {
            case .resync(_, _, let id?):
                resynced.insert(id)
            case .routeUpdate(let update, let id?) where update.generation == Generation.first:
                #expect(!resynced.contains(id), "a line of the old generation after the resync of \(id)")
            case .routeUpdate(let update, let id?):
                #expect(resynced.contains(id), "the route line of \(id) came before its resync line")
                #expect(update.report.unsatisfiedReason == .routeRejects)
                again.insert(id)
            case let other:
                Issue.record("unexpected \(other)")
                return
            }
        }
        #expect(resynced.count == count)
        try client.expectNothingPending()
    }

    @Test("a reload that changes the interface's cost sends a line, without asking the kernel")
    func reload() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Self.destination, .success(Fixture.routeViaEth0))
        let client = try harness.connect()
        try client.send(Request(.subscribe(.route(destination: Self.destination))))
        #expect(try client.nextRoute().update.report.isExpensive == false)
        harness.queue.sync { harness.service.reconfigure(ReloadScript.expensiveEth0()) }
        let expensive = try client.nextRoute().update
        #expect(expensive.sequence == 2)
        #expect(expensive.report.isExpensive)
        #expect(harness.network.lookedUp.count == 1)
    }

    @Test("a lookup the kernel could not answer is lookupFailed and watches nothing; a disconnect ends the watch")
    func failureAndDisconnect() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Self.destination, .failure(RouteLookupError("request socket is closed")))
        let client = try harness.connect()
        try client.send(Request(.subscribe(.route(destination: Self.destination)), id: .integer(3)))
        guard case .error(.lookupFailed, let message, .integer(3)) = try client.next() else {
            Issue.record("expected lookupFailed")
            return
        }
        #expect(message.contains("203.0.113.50") && message.contains("request socket is closed"))
        #expect(harness.queue.sync { harness.service.publisher.routes.count } == 0)
        harness.network.setRoute(to: Self.destination, .success(Fixture.routeViaEth0))
        try client.send(Request(.subscribe(.route(destination: Self.destination)), id: .integer(4)))
        #expect(try client.nextRoute().id == .integer(4))
        #expect(harness.queue.sync { harness.service.publisher.routes.count } == 1)
        client.close()
        try harness.waitForClients("the client left") { $0 == 0 }
        #expect(harness.queue.sync { harness.service.publisher.routes.count } == 0)
    }
}
