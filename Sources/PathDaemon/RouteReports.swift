// SPDX-License-Identifier: Apache-2.0
import KernelState
import PathEvaluation
import PathModel
import ServiceSupport
import SystemCalls

/// The watched routes judged under the running policy: the kernel's answers, which
/// `RouteWatcher` keeps (KernelState computes no path), turned into reports by
/// `PathEvaluator.route` against the snapshot of the moment each answer arrives. The
/// subscribers and the `[Watch]` list hold routes through it; a reload judges the kept
/// answers again (`reevaluate`) without asking the kernel.
///
/// Threading: the state queue only (see `PathService`). Not `Sendable`: the watcher's
/// replies carry it back in a `QueueBound`.
final class RouteReports {
    private let watcher: RouteWatcher
    private let kernelState: KernelStateTracker
    private let configuration: ServiceConfiguration
    /// The report of each watched route that has an answer.
    private var reports: [WatchedRoute: RouteReport] = [:]

    /// Called with the routes whose report changed; after a resync with every route that
    /// has one, and the resync's reason.
    var onChange: ((_ changed: [WatchedRoute], _ resync: String?) -> Void)?

    init(kernelState: KernelStateTracker, configuration: ServiceConfiguration, log: Logger) {
        self.kernelState = kernelState
        self.configuration = configuration
        watcher = RouteWatcher(kernelState: kernelState, log: log)
        watcher.onChange = { [weak self] answered, resync, isCurrent in
            self?.judge(answered, resync: resync, isCurrent: isCurrent)
        }
    }

    /// The kernel's answer for `destination`, judged as a path is, against the snapshot of
    /// the moment and the running policy: the one judgement of the `route` request and of
    /// every watched route.
    func judge(_ destination: IPAddress, zone: String? = nil, _ answer: WatchedRouteAnswer) -> RouteReport {
        PathEvaluator.route(to: destination, zone: zone, answer: answer, snapshot: kernelState.snapshot,
                            policy: configuration.current.policy)
    }

    /// How many routes are watched.
    var count: Int { watcher.count }

    /// The current report of a watched route; nil before its first answer.
    func report(for route: WatchedRoute) -> RouteReport? { reports[route] }

    /// Whether `holder` holds `route`.
    func isHeld(_ route: WatchedRoute, by holder: RouteHolder) -> Bool { watcher.isHeld(route, by: holder) }

    /// `holder` holds `route`; `reply` gets its report (`RouteWatcher.watch`).
    func watch(_ route: WatchedRoute, by holder: RouteHolder,
               reply: @escaping @Sendable (Result<RouteReport, RouteLookupError>) -> Void) {
        let routes = QueueBound(self, on: kernelState.queue)
        watcher.watch(route, by: holder) { result in
            reply(result.map { routes.value.settled(route, $0) })
        }
    }

    /// `holder` no longer holds `route`; its report goes with the watch.
    func release(_ route: WatchedRoute, by holder: RouteHolder) {
        watcher.release(route, by: holder)
        if !watcher.isWatched(route) { reports[route] = nil }
    }

    /// Asks the kernel again for every watched route (`RouteWatcher.refresh`).
    func refresh(resync: String?) {
        watcher.refresh(resync: resync)
    }

    /// The policy changed (a reload): judges every route's latest answer again.
    func reevaluate() {
        var changed: [WatchedRoute] = []
        for (route, previous) in reports {
            guard let answer = watcher.answer(for: route) else { continue }
            let report = judge(route.destination, zone: route.zone, answer)
            guard report != previous else { continue }
            reports[route] = report
            changed.append(route)
        }
        if !changed.isEmpty { onChange?(changed, nil) }
    }

    /// The report of `route` once its first answer came: the one judged meanwhile, if any.
    private func settled(_ route: WatchedRoute, _ answer: WatchedRouteAnswer) -> RouteReport {
        if let report = reports[route] { return report }
        let report = judge(route.destination, zone: route.zone, answer)
        if watcher.isWatched(route) { reports[route] = report }
        return report
    }

    /// Judges the routes just answered; tells `onChange` of those whose report changed
    /// when `isCurrent` (else the resync's round tells every route), and after a resync
    /// of every route that has a report.
    private func judge(_ answered: [WatchedRoute], resync: String?, isCurrent: Bool) {
        if let resync {
            onChange?(answered.filter { reports[$0] != nil }, resync)
            return
        }
        var changed: [WatchedRoute] = []
        for route in answered {
            guard let answer = watcher.answer(for: route) else { continue }
            let report = judge(route.destination, zone: route.zone, answer)
            let previous = reports.updateValue(report, forKey: route)
            if previous != nil && previous != report { changed.append(route) }
        }
        if isCurrent && !changed.isEmpty { onChange?(changed, nil) }
    }
}
