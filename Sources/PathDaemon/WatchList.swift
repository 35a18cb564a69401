// SPDX-License-Identifier: Apache-2.0
import Dispatch
import KernelState
import PathModel
import PathConfiguration
import ServiceSupport
import SystemCalls

/// The hosts of `[Watch] Destination=` (pathd.conf(5)): routes pathd follows of its own
/// accord for its metrics (`pathd_route_*`, pathd(8) METRICS), through the same
/// `RouteReports` as route subscriptions, so a route both watch is asked about once; the
/// list holds its routes as `RouteHolder.watchList`, so a route stays watched while
/// either holds it.
///
/// Names are resolved with the system resolver on a queue of its own (getaddrinfo may
/// wait seconds for a DNS server), at the first path, on each reload and whenever the
/// default path changes; the answer hops back onto the state queue, where only the
/// resolver's answers are applied. One round at a time: reloads and path changes while
/// one is out ask for one more, so a storm of them (a reload loop, a flapping link with a
/// slow DNS server) queues nothing. A name that does not resolve is reported as such.
///
/// Threading: the state queue only (see `PathService`), but for `resolverQueue`, which
/// touches nothing of `self`. Not `Sendable`: the resolver's and the route watcher's
/// answers carry it back in a `QueueBound`. It knows nothing of the publisher: the
/// service tells it of path and route changes (`pathChanged`, `routesChanged`).
final class WatchList {
    /// Addresses watched per name at most, in the resolver's order.
    static let maximumAddressesPerHost = 8

    /// One host of the list and what is known of it.
    struct HostState {
        let host: WatchSettings.Host
        /// Its routes: its address (with its zone), or its name's addresses.
        var routes: [WatchedRoute] = []
        /// Why a name has no address, in the resolver's words; nil otherwise.
        var unresolved: String?
        /// Whether a name was resolved yet (an address is known at once).
        var isKnown: Bool
        /// The time no route of the host was usable (or its name did not resolve).
        var unusable = OutageClock()
        /// What the history last said of it.
        var recorded: PathChange?
    }

    private let queue: DispatchQueue
    private let log: Logger
    private let routes: RouteReports
    private let kernelState: KernelStateTracker
    private let records: ServiceRecords
    private let resolverQueue = DispatchQueue(label: "pathd.watch.resolver")
    /// In the order of `Destination=`. The metrics read it (`DaemonMetrics.RouteSection`).
    private(set) var hosts: [HostState] = [] {
        didSet { records.changed() }
    }
    /// Whether a resolution round is out, and whether another is due after it.
    private var isResolving = false
    private var resolveAgain = false

    init(queue: DispatchQueue, log: Logger, routes: RouteReports, kernelState: KernelStateTracker,
         records: ServiceRecords) {
        self.queue = queue
        self.log = log
        self.routes = routes
        self.kernelState = kernelState
        self.records = records
    }

    /// Whether the list holds `route`.
    func holds(_ route: WatchedRoute) -> Bool { hosts.contains { $0.routes.contains(route) } }

    /// Takes the configured list (at the first path and after each reload): hosts kept
    /// keep what is known of them; the names are resolved again.
    func apply(_ settings: WatchSettings) {
        let next = settings.destinations.map { host in
            hosts.first { $0.host == host } ?? {
                switch host {
                case .address(let address, let zone):
                    HostState(host: host, routes: [WatchedRoute(destination: address, zone: zone)], isKnown: true)
                case .name:
                    HostState(host: host, isKnown: false)
                }
            }()
        }
        let dropped = Set(hosts.flatMap(\.routes)).subtracting(next.flatMap(\.routes))
        hosts = next
        release(dropped)
        watchAll()
        resolveNames()
    }

    /// The default path changed: a name's addresses may have too (another resolver, a
    /// VPN's DNS).
    func pathChanged() {
        resolveNames()
    }

    /// A watched route's report changed (or a name's addresses): the outage clocks and
    /// the history follow each host's state.
    func routesChanged() {
        // The metrics read each watched address's report, which just changed, even where
        // no host's state does (a route that moved to another interface stays usable).
        guard !hosts.isEmpty else { return }
        records.changed()
        let now = records.clock.now()
        for index in hosts.indices {
            guard var change = state(of: hosts[index]) else { continue }
            hosts[index].unusable.record(isOut: change.status != .satisfied, at: now)
            let previous = hosts[index].recorded
            change.sequence = previous?.sequence ?? 0
            change.generation = previous?.generation ?? change.generation
            guard change != previous else { continue }
            change.sequence += 1
            change.generation = kernelState.generation
            hosts[index].recorded = change
            records.recordRoute(host: hosts[index].host.description, change, at: now)
        }
    }

    /// The host's state as the history says it: satisfied when any of its routes is
    /// usable (through those routes' interfaces), else why the first is not, or why the
    /// name does not resolve; nil while that is not known (a name not resolved yet, a
    /// route not answered yet). Generation and sequence are the caller's.
    private func state(of host: HostState) -> PathChange? {
        guard host.isKnown else { return nil }
        if let unresolved = host.unresolved {
            var change = PathChange(status: .unsatisfied, unsatisfiedReason: .unresolved,
                                    generation: .first, sequence: 0)
            change.recordedExplanation = unresolved
            return change
        }
        let reports = host.routes.map(routes.report(for:))
        let usable = reports.compactMap { $0 }.filter(\.isUsable)
        if !usable.isEmpty {
            var interfaces: [String] = []
            for name in usable.compactMap(\.interface?.name) where !interfaces.contains(name) {
                interfaces.append(name)
            }
            return PathChange(status: .satisfied, interfaces: interfaces, generation: .first, sequence: 0)
        }
        guard let first = reports.first, let report = first, !reports.contains(nil) else { return nil }
        var change = PathChange(status: report.status, unsatisfiedReason: report.unsatisfiedReason,
                                reasonInterface: report.reasonInterface, generation: .first, sequence: 0)
        change.recordedExplanation = report.reason
        return change
    }

    // MARK: Resolving

    private func resolveNames() {
        let names = hosts.compactMap { state -> String? in
            if case .name(let name) = state.host { name } else { nil }
        }
        guard !names.isEmpty else { return }
        guard !isResolving else {
            resolveAgain = true
            return
        }
        isResolving = true
        let list = QueueBound(self, on: queue)
        resolverQueue.async {
            let answers = names.map { name in (name, HostResolver.ipAddresses(of: name)) }
            list.queue.async { list.value.resolved(answers) }
        }
    }

    private func resolved(_ answers: [(String, Result<[IPAddress], HostResolver.Failure>)]) {
        isResolving = false
        defer {
            if resolveAgain {
                resolveAgain = false
                resolveNames()
            }
        }
        var before = Set(hosts.flatMap(\.routes))
        for (name, answer) in answers {
            guard let index = hosts.firstIndex(where: { $0.host == .name(name) }) else { continue }
            let reason = HostResolver.unresolvedReason(answer)
            switch answer {
            case .success(let list):
                hosts[index].routes = list.prefix(Self.maximumAddressesPerHost).map { WatchedRoute(destination: $0) }
            case .failure:
                if hosts[index].unresolved == nil, let reason { log.notice("[Watch] \(name): \(reason)") }
                hosts[index].routes = []
            }
            hosts[index].unresolved = reason
            hosts[index].isKnown = true
        }
        before.subtract(hosts.flatMap(\.routes))
        release(before)
        watchAll()
        routesChanged()
    }

    // MARK: Watching

    /// Holds every route of the list: new ones, and asks again for ones whose first
    /// lookup the kernel could not answer (no report yet).
    private func watchAll() {
        let list = QueueBound(self, on: queue)
        for route in Set(hosts.flatMap(\.routes))
        where !routes.isHeld(route, by: .watchList) || routes.report(for: route) == nil {
            routes.watch(route, by: .watchList) { _ in list.value.answered(route) }
        }
    }

    /// The kernel's first answer for `route`. Dropped by a reload while the kernel was
    /// asked: held again by the answer (`RouteWatcher.watch`), released here.
    private func answered(_ route: WatchedRoute) {
        if !holds(route) { routes.release(route, by: .watchList) }
        routesChanged()
    }

    /// Releases the routes the list no longer holds (watched still if a subscriber holds one).
    private func release(_ dropped: Set<WatchedRoute>) {
        for route in dropped { routes.release(route, by: .watchList) }
    }
}
