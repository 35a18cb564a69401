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
/// request's RTM_GETROUTE). It judges nothing: its owner judges the answers under its
/// policy (`PathEvaluator.route`). The daemon's route subscriptions and the client
/// library's in-process route sequences both run it on their `KernelStateTracker`, so
/// they ask the same (docs/ARCHITECTURE.md, "Watched routes").
///
/// After each change of the kernel's state (`refresh`, once the change's paths are
/// published), every watched route is asked again, in one round on the source's queue
/// (`KernelStateTracker.lookUpRoutes`), in parts of `routesPerPart`: one lookup per
/// distinct route, however many subscribers it has. While a round is out, further
/// changes only mark that one more round is due, so a burst of batches costs at most two
/// rounds. `onChange` hears of the routes answered, part by part, and of every route
/// after a resync. It is the one owner of the watched destinations (the tracker reads
/// them for its sources' kernel-side route filter) and of their last answers: each is
/// given back with the route's next question (`RouteQuestion.known`), so the source asks
/// again only through the links a change could have reached, and keeps none.
///
/// Threading: the tracker's queue only, as `KernelStateTracker`. `@unchecked Sendable`: the
/// lookups' replies capture `self` and are called on that queue.
public final class RouteWatcher: @unchecked Sendable {
    private struct Entry {
        /// The kernel's latest answer; nil until the first arrives.
        var answer: WatchedRouteAnswer?
        /// When the source asked a `.lookup` answer (`AskedLookup.askedAt`).
        var askedAt: LookupStamp?
        /// Who holds it; never empty while the entry exists.
        var holders: Set<RouteHolder>

        init(answer: WatchedRouteAnswer? = nil, askedAt: LookupStamp? = nil, holders: Set<RouteHolder>) {
            self.answer = answer
            self.askedAt = askedAt
            self.holders = holders
        }

        /// The answers to give back with the next question (`RouteQuestion.known`), so
        /// that the source asks again only through the links a change could have reached.
        var known: KnownAnswers? {
            guard case .lookup(let lookup)? = answer, let askedAt else { return nil }
            return AskedLookup(lookup, askedAt: askedAt).known
        }
    }

    private let kernelState: KernelStateTracker
    private let log: Logger
    private var entries: [WatchedRoute: Entry] = [:]
    /// Whether a round of lookups is out (read on the tracker's queue).
    private(set) var isRefreshing = false
    /// Whether the state changed again while it was out.
    private var refreshAgain = false
    /// The reason of a resync not yet passed to `onChange`.
    private var pendingResync: String?

    /// Called on the queue with the watched routes just answered, and whether the
    /// tracker's generation is still the one they were asked in (`isCurrent`: else their
    /// lines would precede that generation's resync); after a resync with every answered
    /// route and the resync's reason.
    public var onChange: ((_ answered: [WatchedRoute], _ resync: String?, _ isCurrent: Bool) -> Void)?

    public init(kernelState: KernelStateTracker, log: Logger) {
        self.kernelState = kernelState
        self.log = log
        precondition(kernelState.routeWatcher == nil, "one RouteWatcher per KernelStateTracker")
        kernelState.routeWatcher = self
    }

    /// The kernel's latest answer for a watched route; nil before its first.
    public func answer(for route: WatchedRoute) -> WatchedRouteAnswer? {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        return entries[route]?.answer
    }

    /// Whether anyone holds `route`.
    public func isWatched(_ route: WatchedRoute) -> Bool { entries[route] != nil }

    /// How many routes are watched.
    public var count: Int { entries.count }

    /// The destinations of the watched routes: the one list of them, which the tracker
    /// reads for its sources' route filter.
    var destinations: Set<IPAddress> { Set(entries.keys.map(\.destination)) }

    /// `holder` holds `route` (watched from now on if it was not) and `reply` is called
    /// once, on the queue, with its answer: at once when there is one, else after its
    /// first lookup. A lookup the kernel could not answer is a failure, and a route first
    /// watched by this call is not watched.
    public func watch(_ route: WatchedRoute, by holder: RouteHolder,
                      reply: @escaping @Sendable (Result<WatchedRouteAnswer, RouteLookupError>) -> Void) {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        if entries[route] != nil { entries[route]?.holders.insert(holder) }
        if let answer = entries[route]?.answer {
            reply(.success(answer))
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
                if isNew && entries[route]?.answer == nil, entries.removeValue(forKey: route) != nil {
                    watchedDestinationsChanged()
                }
                reply(.failure(error))
            case .success(let asked)?:
                reply(.success(settle(route, by: holder, answer: .lookup(asked.lookup), askedAt: asked.askedAt)))
            case nil:
                // The zone names no interface: not asked (`ask`).
                reply(.success(settle(route, by: holder, answer: .noInterface, askedAt: nil)))
            }
        }
    }

    /// The answer for `route` once its first came. Dropped meanwhile (a failed first
    /// lookup of another caller unwatched it), the route is watched again for `holder`
    /// with this answer: the holder releases what it no longer needs (`release`).
    private func settle(_ route: WatchedRoute, by holder: RouteHolder,
                        answer: WatchedRouteAnswer, askedAt: LookupStamp?) -> WatchedRouteAnswer {
        if let kept = entries[route]?.answer { return kept }
        let wasWatched = entries[route] != nil
        entries[route] = Entry(answer: answer, askedAt: askedAt, holders: entries[route]?.holders ?? [holder])
        if !wasWatched { watchedDestinationsChanged() }
        return answer
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
            if let resync { onChange?(entries.keys.filter { entries[$0]?.answer != nil }, resync, true) }
            if refreshAgain {
                refreshAgain = false
                refresh()
            }
        }
    }

    // MARK: Asking

    /// Watched routes asked in one part of a round (one `lookUpRoutes` call): with one
    /// interface, 16 lookups, one turn of the netlink monitor's queue. Small, so that a
    /// change arriving during a round waits little on either queue (parts of 32 were
    /// measured against these: docs/PERFORMANCE.md, "One user at the route limit").
    public static let routesPerPart = 8

    /// Asks the kernel about `routes`, `routesPerPart` at a time, each part once the one
    /// before is answered; records each answer and tells `onChange` of each part's
    /// answered routes, current while the tracker's generation is still `generation`
    /// (nil: never); then `then`, with the answers of the last part's routes that were
    /// asked (not those whose zone names no interface), in order: all of them when they
    /// fit in one part, as `watch`'s one route does. A part answered once the generation
    /// moved on is told as not current: the publisher would stamp its lines with the new
    /// generation before that generation's resync line, and the resync's round tells
    /// every route.
    private func ask(_ routes: ArraySlice<WatchedRoute>, publishingIn generation: Generation?,
                     then: @escaping @Sendable ([Result<AskedLookup, RouteLookupError>]) -> Void) {
        // A zone is resolved against the snapshot now: a link that went away is no
        // question for the kernel, and the report says so.
        var questions: [RouteQuestion] = []
        var asked: [WatchedRoute] = []
        var gone: [WatchedRoute] = []
        for route in routes.prefix(Self.routesPerPart) {
            guard let zone = route.zone else {
                questions.append(RouteQuestion(destination: route.destination, known: entries[route]?.known))
                asked.append(route)
                continue
            }
            guard let link = kernelState.snapshot.link(zone: zone) else {
                if record(route, .noInterface, askedAt: nil) { gone.append(route) }
                continue
            }
            questions.append(RouteQuestion(destination: route.destination, interface: link.index))
            asked.append(route)
        }
        let rest = routes.dropFirst(Self.routesPerPart)
        kernelState.lookUpRoutes(questions) { [weak self, asked, gone] answers in
            guard let self else { return }
            var answered = gone
            for (route, answer) in zip(asked, answers) {
                switch answer {
                case .success(let asked):
                    if record(route, .lookup(asked.lookup), askedAt: asked.askedAt) { answered.append(route) }
                case .failure(let error):
                    // Not an answer about the route: the last report stands until the
                    // next round (a broken socket makes the tracker replace the source).
                    log.warning("route lookup for watched \(route) failed: \(error)")
                }
            }
            if !answered.isEmpty { onChange?(answered, nil, generation != nil && generation == kernelState.generation) }
            guard rest.isEmpty else {
                ask(rest, publishingIn: generation, then: then)
                return
            }
            then(answers)
        }
    }

    /// Records the answer for `route` while it is watched; whether it had one before
    /// (the first is `watch`'s to tell).
    private func record(_ route: WatchedRoute, _ answer: WatchedRouteAnswer, askedAt: LookupStamp?) -> Bool {
        guard let previous = entries[route] else { return false }
        entries[route]?.answer = answer
        entries[route]?.askedAt = askedAt
        return previous.answer != nil
    }

    private func watchedDestinationsChanged() {
        kernelState.watchedDestinationsChanged()
    }
}
