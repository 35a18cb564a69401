// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import ServiceSupport

/// One watched route: a destination and, for a link-scoped one, its zone (an interface
/// name or index, as the `route` request takes it; RouteZone.swift).
public struct WatchedRoute: Hashable, Sendable, CustomStringConvertible {
    public var destination: IPAddress
    public var zone: String?

    public init(destination: IPAddress, zone: String? = nil) {
        self.destination = destination
        self.zone = zone
    }

    /// "198.51.100.7", "fe80::1%eth0".
    public var description: String { zone.map { "\(destination)%\($0)" } ?? destination.description }
}

/// Who holds a watched route (the daemon's subscribers, its `[Watch]` list): a route is
/// watched while anyone holds it, so each holder releases its own and none asks another.
public struct RouteHolder: Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ name: String) { description = name }
}

/// The routes someone watches, kept current: the kernel's answer for each (the `route`
/// request's RTM_GETROUTE) and its judgement (`PathEvaluator.route`). The daemon's route
/// subscriptions and the client library's in-process route sequences both run it on
/// their `KernelStateTracker`, so they answer the same (docs/ARCHITECTURE.md, "Watched routes").
///
/// After each change of the kernel's state (`refresh`, once the change's paths are
/// published), every watched route is asked again, in one round on the source's queue
/// (`KernelStateTracker.lookUpRoutes`), in parts of `routesPerPart`: one lookup per
/// distinct route, however many subscribers it has. While a round is out, further
/// changes only mark that one more round is due, so a burst of batches costs at most two
/// rounds. `onChange` hears of the routes whose report changed, part by part, and of
/// every route after a resync. It is the one owner of the watched destinations: the
/// tracker reads them for its sources' kernel-side route filter.
///
/// Threading: the tracker's queue only, as `KernelStateTracker`. `@unchecked Sendable`: the
/// lookups' replies capture `self` and are called on that queue.
public final class RouteWatcher: @unchecked Sendable {
    /// Judges the kernel's answer for a destination against the tracker's snapshot of the
    /// moment, under the caller's policy.
    public typealias Judge = (_ destination: IPAddress, _ lookup: DestinationLookup) -> RouteReport

    private struct Entry {
        /// The kernel's latest answer; nil until the first arrives, or while the zone
        /// names no interface.
        var lookup: DestinationLookup?
        var report: RouteReport?
        /// Who holds it; never empty while the entry exists.
        var holders: Set<RouteHolder>
    }

    private let kernelState: KernelStateTracker
    private let log: Logger
    private let judge: Judge
    private var entries: [WatchedRoute: Entry] = [:]
    /// Whether a round of lookups is out.
    private var isRefreshing = false
    /// Whether the state changed again while it was out.
    private var refreshAgain = false
    /// The reason of a resync not yet passed to `onChange`.
    private var pendingResync: String?

    /// Called on the queue with the watched routes whose report changed; after a resync
    /// with every watched route and the resync's reason.
    public var onChange: ((_ changed: [WatchedRoute], _ resync: String?) -> Void)?

    public init(kernelState: KernelStateTracker, log: Logger, judge: @escaping Judge) {
        self.kernelState = kernelState
        self.log = log
        self.judge = judge
        precondition(kernelState.routeWatcher == nil, "one RouteWatcher per KernelStateTracker")
        kernelState.routeWatcher = self
    }

    /// The current report of a watched route; nil before its first answer.
    public func report(for route: WatchedRoute) -> RouteReport? {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        return entries[route]?.report
    }

    /// How many routes are watched.
    public var count: Int { entries.count }

    /// The destinations of the watched routes: the one list of them, which the tracker
    /// reads for its sources' route filter.
    var destinations: Set<IPAddress> { Set(entries.keys.map(\.destination)) }

    /// `holder` holds `route` (watched from now on if it was not) and `reply` is called
    /// once, on the queue, with its report: at once when there is one, else after its
    /// first lookup. A lookup the kernel could not answer is a failure, and a route first
    /// watched by this call is not watched.
    public func watch(_ route: WatchedRoute, by holder: RouteHolder,
                      reply: @escaping @Sendable (Result<RouteReport, RouteLookupError>) -> Void) {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        if entries[route] != nil { entries[route]?.holders.insert(holder) }
        if let report = entries[route]?.report {
            reply(.success(report))
            return
        }
        let isNew = entries[route] == nil
        if isNew {
            entries[route] = Entry(holders: [holder])
            watchedDestinationsChanged()
        }
        ask([route], publishingIn: kernelState.generation) { [weak self] answers in
            guard let self else { return }
            switch answers.first {
            case .failure(let error)?:
                if isNew && entries[route]?.report == nil, entries.removeValue(forKey: route) != nil {
                    watchedDestinationsChanged()
                }
                reply(.failure(error))
            case .success(let lookup)?:
                reply(.success(settle(route, by: holder, lookup: lookup)))
            case nil:
                // The zone names no interface: not asked (`ask`).
                reply(.success(settle(route, by: holder, lookup: nil)))
            }
        }
    }

    /// The report of `route` once its first answer came. Dropped meanwhile (a failed first
    /// lookup of another caller unwatched it), the route is watched again for `holder`
    /// with this answer: the holder releases what it no longer needs (`release`).
    private func settle(_ route: WatchedRoute, by holder: RouteHolder, lookup: DestinationLookup?) -> RouteReport {
        if let report = entries[route]?.report { return report }
        let wasWatched = entries[route] != nil
        let report = store(route, lookup: lookup, holders: entries[route]?.holders ?? [holder])
        if !wasWatched { watchedDestinationsChanged() }
        return report
    }

    /// `holder` no longer holds `route`; it is not watched once nobody does.
    public func release(_ route: WatchedRoute, by holder: RouteHolder) {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        guard var entry = entries[route], entry.holders.remove(holder) != nil else { return }
        guard entry.holders.isEmpty else {
            entries[route] = entry
            return
        }
        entries[route] = nil
        watchedDestinationsChanged()
    }

    /// Whether `holder` holds `route`.
    public func isHeld(_ route: WatchedRoute, by holder: RouteHolder) -> Bool {
        entries[route]?.holders.contains(holder) ?? false
    }

    /// The kernel's state changed: asks the kernel again for every watched route, in one
    /// round, after the caller published what the change did to its paths: the source
    /// asks them behind the batch it delivered, never within it, so a path's line waits
    /// for nobody's watched routes. The round goes in parts of `routesPerPart`, each
    /// asked once the one before is answered and its lines are out, so a change that
    /// comes meanwhile waits for one part on either queue, not for the round. `resync`
    /// is the tracker's reason when a new generation began: the round then sends the
    /// resync and the route to all of them at once, after its last part.
    public func refresh(resync: String? = nil) {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        if let resync { pendingResync = resync }
        guard !entries.isEmpty else {
            pendingResync = nil
            return
        }
        guard !isRefreshing else {
            refreshAgain = true
            return
        }
        isRefreshing = true
        let resync = pendingResync
        pendingResync = nil
        ask(Array(entries.keys)[...], publishingIn: resync == nil ? kernelState.generation : nil) { [weak self] _ in
            guard let self else { return }
            isRefreshing = false
            if let resync { onChange?(entries.keys.filter { entries[$0]?.report != nil }, resync) }
            if refreshAgain {
                refreshAgain = false
                refresh()
            }
        }
    }

    /// The policy changed (a reload): judges every route's latest answer again.
    public func reevaluate() {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        var changed: [WatchedRoute] = []
        for (route, entry) in entries where entry.report != nil {
            if record(route, lookup: entry.lookup) { changed.append(route) }
        }
        if !changed.isEmpty { onChange?(changed, nil) }
    }

    // MARK: Asking

    /// Watched routes asked in one part of a round (one `lookUpRoutes` call): with one
    /// interface, 16 lookups, one turn of the netlink monitor's queue. Small, so that a
    /// change arriving during a round waits little on either queue (parts of 32 were
    /// measured against these: docs/PERFORMANCE.md, "One user at the route limit").
    public static let routesPerPart = 8

    /// Asks the kernel about `routes`, `routesPerPart` at a time, each part once the one
    /// before is answered; records each answer and tells `onChange` of each part's
    /// changed routes while the tracker's generation is still `generation` (nil: never);
    /// then `then`, with the answers of the last part's routes that were asked (not those
    /// whose zone names no interface), in order: all of them when they fit in one part,
    /// as `watch`'s one route does. A part answered once the generation moved on is
    /// recorded but not told: the publisher would stamp its lines with the new generation
    /// before that generation's resync line, and the resync's round tells every route.
    private func ask(_ routes: ArraySlice<WatchedRoute>, publishingIn generation: Generation?,
                     then: @escaping @Sendable ([Result<DestinationLookup, RouteLookupError>]) -> Void) {
        // A zone is resolved against the snapshot now: a link that went away is no
        // question for the kernel, and the report says so.
        var questions: [RouteQuestion] = []
        var asked: [WatchedRoute] = []
        var gone: [WatchedRoute] = []
        for route in routes.prefix(Self.routesPerPart) {
            guard let zone = route.zone else {
                questions.append(RouteQuestion(destination: route.destination))
                asked.append(route)
                continue
            }
            guard let link = kernelState.snapshot.link(zone: zone) else {
                if entries[route] != nil, record(route, lookup: nil) { gone.append(route) }
                continue
            }
            questions.append(RouteQuestion(destination: route.destination, interface: link.index))
            asked.append(route)
        }
        let rest = routes.dropFirst(Self.routesPerPart)
        kernelState.lookUpRoutes(questions) { [weak self, asked, gone] answers in
            guard let self else { return }
            var changed = gone
            for (route, answer) in zip(asked, answers) {
                switch answer {
                case .success(let lookup):
                    if entries[route] != nil, record(route, lookup: lookup) { changed.append(route) }
                case .failure(let error):
                    // Not an answer about the route: the last report stands until the
                    // next round (a broken socket makes the tracker replace the source).
                    log.warning("route lookup for watched \(route) failed: \(error)")
                }
            }
            if !changed.isEmpty, let generation, generation == kernelState.generation { onChange?(changed, nil) }
            guard rest.isEmpty else {
                ask(rest, publishingIn: generation, then: then)
                return
            }
            then(answers)
        }
    }

    /// Records the answer for `route` (nil: its zone names no interface) and its
    /// judgement; whether the report changed from an earlier one.
    private func record(_ route: WatchedRoute, lookup: DestinationLookup?) -> Bool {
        guard let entry = entries[route] else { return false }
        let report = store(route, lookup: lookup, holders: entry.holders)
        return entry.report != nil && entry.report != report
    }

    /// Keeps the answer for `route` and its judgement; returns the judgement.
    private func store(_ route: WatchedRoute, lookup: DestinationLookup?, holders: Set<RouteHolder>) -> RouteReport {
        let report = lookup.map { judge(route.destination, $0) } ?? Self.zoneGone(route)
        entries[route] = Entry(lookup: lookup, report: report, holders: holders)
        return report
    }

    /// The report of a link-scoped destination whose zone names no interface now.
    private static func zoneGone(_ route: WatchedRoute) -> RouteReport {
        RouteReport(destination: route.destination, status: .unsatisfied, unsatisfiedReason: .noInterface,
                    reasonInterface: route.zone)
    }

    private func watchedDestinationsChanged() {
        kernelState.watchedDestinationsChanged()
    }
}
