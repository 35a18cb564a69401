// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
@testable import KernelState
import PathModel
import PathTestFixtures
import ServiceSupport
import Synchronization
import Testing
@testable import Netlink

/// The watched routes' lookups (docs/ARCHITECTURE.md, "Watched routes"): asked after the
/// batch that made them stale has been delivered and applied, in rounds of their own,
/// through a link only when a change could have reached its answer since.
@Suite(.enabled(if: namespaceSupport.isAvailable, "needs root and ip netns: \(namespaceSupport.reason)"), .blocking)
struct WatchedRouteRoundTests {
    static let v4 = IPAddress("198.18.0.1")!
    static let v6 = IPAddress("2001:db8:ffff::1")!

    /// Asks `monitor` about `destinations` and waits for the answers; with the answers of
    /// the last round (`known`, in the same order), given back as a watcher gives them.
    static func ask(_ monitor: NetlinkMonitor, _ destinations: [IPAddress],
                    known: [AskedLookup] = []) throws -> [AskedLookup] {
        let done = DispatchSemaphore(value: 0)
        let answers = Mutex<[Result<AskedLookup, RouteLookupError>]>([])
        let questions = destinations.enumerated().map { position, destination in
            RouteQuestion(destination: destination,
                          known: known.indices.contains(position) ? known[position].known : nil)
        }
        monitor.lookUpRoutes(questions) { result in
            answers.withLock { $0 = result }
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 10) == .success, "the lookups were not answered")
        return try answers.withLock { $0 }.map { try $0.get() }
    }

    @Test("the tracker applies a change's batch, and the caller publishes it, before the watched routes are asked")
    func batchBeforeWatchedRoutes() throws {
        let host = try InterfaceLookupKernelTests.TwoUplinks()
        let queue = DispatchQueue(label: "pathd.test.watched.state")
        let log = Logger(threshold: .error, journalPrefixes: false)
        // Only read by the source's `start`, while `host` keeps the namespace.
        nonisolated(unsafe) let namespace = host.namespace
        let tracker = KernelStateTracker(queue: queue, log: log) { generation, callbacks in
            NamespacedSource(NetlinkMonitor(generation: generation, configuration: .standard,
                                            deliver: callbacks.deliver, lost: callbacks.lost, log: { _, _ in }),
                             in: namespace)
        }
        let watcher = RouteWatcher(kernelState: tracker, log: log)
        let route = WatchedRoute(destination: Self.v4)
        // The judgement: whether the kernel's own answer is a route, and through which gateway.
        @Sendable func report(_ answer: WatchedRouteAnswer?) -> RouteReport? {
            guard let answer else { return nil }
            guard case .lookup(let lookup) = answer, case .route(let found) = lookup.route,
                  found.type == .unicast else {
                return RouteReport(destination: route.destination, status: .unsatisfied)
            }
            return RouteReport(destination: route.destination, status: .satisfied, gateway: found.gateway)
        }
        /// What the watched route's report was each time the tracker applied a batch, just
        /// after the watcher was told (`refresh`, in the same turn).
        let atBatches = Mutex<[RouteReport?]>([])
        /// Each change the watcher reported, with how many batches were applied before it.
        let changed = Mutex<[(report: RouteReport, batches: Int)]>([])
        let arrived = DispatchSemaphore(value: 0)
        queue.sync {
            tracker.onChange = { resync in
                watcher.refresh(resync: resync)
                let report = report(watcher.answer(for: route))
                atBatches.withLock { $0.append(report) }
                arrived.signal()
            }
            watcher.onChange = { routes, _, _ in
                if routes.contains(route), let report = report(watcher.answer(for: route)) {
                    let batches = atBatches.withLock { $0.count }
                    changed.withLock { $0.append((report, batches)) }
                    arrived.signal()
                }
            }
            tracker.start()
        }
        defer { queue.sync { tracker.stop() } }
        func wait(_ what: String, until condition: () -> Bool) throws {
            let deadline = DispatchTime.now() + 10
            while !condition() {
                try #require(arrived.wait(timeout: deadline) == .success, "\(what) never came")
            }
        }
        try wait("the first state") { !atBatches.withLock { $0 }.isEmpty }
        let first = DispatchSemaphore(value: 0)
        let firstReport = Mutex<RouteReport?>(nil)
        queue.sync {
            watcher.watch(route, by: RouteHolder("the test")) { result in
                firstReport.withLock { $0 = report(try? result.get()) }
                first.signal()
            }
        }
        try #require(first.wait(timeout: .now() + 10) == .success, "no first answer")
        let throughA = try #require(firstReport.withLock { $0 })
        #expect(throughA.status == .satisfied && throughA.gateway == IPAddress("10.1.0.2"))
        // No round out when the route changes: a round an earlier batch started (a
        // gateway's entry read after the first lookups) and asked after the change would
        // report the new route before the change's own batch came, which is no order of
        // this test's (a fresh clone's `make test` beside two busy loops met it once).
        var batchesBefore = 0
        try waitUntil("no round of the watched routes is out") {
            queue.sync {
                guard !watcher.isRefreshing else { return false }
                batchesBefore = atBatches.withLock { $0.count }
                return true
            }
        }

        // a0's default goes: the destination's route moves to b0's.
        try host.namespace.ip("route", "del", "default", "via", "10.1.0.2")
        try wait("the route through b0") {
            changed.withLock { $0 }.contains { $0.report.gateway == IPAddress("10.2.0.2") }
        }
        // The batches applied before the watcher reported the new route: those that
        // brought the change (later ones, a gateway's neighbour entry read again, come
        // after the answer and show it).
        let reported = try #require(changed.withLock { $0 }.first { $0.report.gateway == IPAddress("10.2.0.2") })
        let applied = atBatches.withLock { Array($0[batchesBefore..<reported.batches]) }
        try #require(!applied.isEmpty)
        // Every batch that brought the change was applied while the route still had its
        // old answer: it was asked only after the batch, in a turn of its own.
        #expect(applied.allSatisfy { $0 == throughA }, "reports when batches were applied: \(applied)")
    }

    @Test("a watched destination's answers kept across rounds are what a fresh monitor asking every link says")
    func keptAnswersEqualAFreshAnswer() throws {
        let host = try StaleInterfaceLookupTests.ThreeUplinks()
        let inbox = BatchInbox()
        let monitor = try host.startMonitor(inbox, generation: 1)
        defer { monitor.cancel() }
        _ = try #require(inbox.next(), "no first batch; lost: \(inbox.lostReasons)")
        let destinations = [Self.v4, Self.v6]
        monitor.passRoutes(covering: Set(destinations))
        var answers = try Self.ask(monitor, destinations)
        let links = [host.index("a0"), host.index("b0"), host.index("c0")]
        func linksToAsk() -> [InterfaceIndex] {
            monitor.queue.sync { monitor.staleness.linksToAsk(known: answers[0].known, among: links) }
        }
        #expect(linksToAsk().isEmpty, "nothing changed since")

        // A route through b0 covering the IPv4 destination: b0's answers alone are stale.
        // Its batch is the one with lookups (the first batch's gateways may still bring a
        // batch of their entries, `followGateways`, which asks nothing).
        try host.namespace.ip("route", "add", "198.18.0.0/24", "via", "10.2.0.2", "dev", "b0")
        #expect(inbox.first { $0.events.contains { if case .routeLookup = $0 { true } else { false } } } != nil,
                "no batch after the route; lost: \(inbox.lostReasons)")
        #expect(linksToAsk() == [host.index("b0")])
        answers = try Self.ask(monitor, destinations, known: answers)

        // Then changes of every kind, each followed by a round, as the watcher asks.
        let changes: [[String]] = [
            ["-6", "route", "add", "2001:db8:ff00::/40", "via", "2001:db8:3::2", "dev", "c0"],
            ["route", "add", "198.18.0.0/25", "nexthop", "via", "10.1.0.2", "dev", "a0",
             "nexthop", "via", "10.3.0.2", "dev", "c0"],
            ["route", "del", "default", "via", "10.1.0.2"],
            ["-6", "route", "add", "unreachable", "2001:db8:fff0::/44"],
            ["addr", "add", "10.1.0.9/24", "dev", "a0"],
            ["route", "del", "198.18.0.0/24"],
            ["rule", "add", "pref", "500", "lookup", "main"],
        ]
        for change in changes {
            try host.namespace.ip(change)
            #expect(inbox.first { !$0.events.isEmpty } != nil, "no batch after \(change); lost: \(inbox.lostReasons)")
            answers = try Self.ask(monitor, destinations, known: answers)
        }
        try host.peer.ip("link", "set", "pc0", "down")
        #expect(inbox.first { $0.links.contains { $0.name == "c0" && $0.linkState == .noCarrier } } != nil,
                "c0's carrier loss never arrived; lost: \(inbox.lostReasons)")
        let kept = try Self.ask(monitor, destinations, known: answers)
        // A monitor given no known answers asks every link.
        let freshInbox = BatchInbox()
        let fresh = try host.startMonitor(freshInbox, generation: 2)
        defer { fresh.cancel() }
        _ = try #require(freshInbox.next(), "no first batch from a fresh monitor; lost: \(freshInbox.lostReasons)")
        #expect(kept.map(\.lookup) == (try Self.ask(fresh, destinations)).map(\.lookup))
        #expect(inbox.lostReasons.isEmpty && freshInbox.lostReasons.isEmpty)
    }
}

/// A netlink monitor whose sockets are opened in `namespace` (`start` runs there): the
/// tracker starts its sources on its own queue, whose thread is in the test's namespace.
/// `@unchecked Sendable`: the namespace is only read (its name) by `start`.
final class NamespacedSource: PathEventSource, @unchecked Sendable {
    private let monitor: NetlinkMonitor
    private let namespace: NetworkNamespace

    init(_ monitor: NetlinkMonitor, in namespace: NetworkNamespace) {
        self.monitor = monitor
        self.namespace = namespace
    }

    func start() {
        do {
            try namespace.start(monitor, on: monitor.queue)
        } catch {
            Issue.record("cannot start the monitor in \(namespace.name): \(error)")
        }
    }

    func cancel() { monitor.cancel() }

    func lookUpRoutes(_ questions: [RouteQuestion],
                      reply: @escaping @Sendable ([Result<AskedLookup, RouteLookupError>]) -> Void) {
        monitor.lookUpRoutes(questions, reply: reply)
    }

    func passRoutes(covering destinations: Set<IPAddress>) { monitor.passRoutes(covering: destinations) }

    func refreshNeighbours(_ gateways: [Neighbour.Key]) { monitor.refreshNeighbours(gateways) }
}
