// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Netlink
import KernelState
import PathModel
import PathEvaluation
import PathConfiguration
import ServiceSupport

/// The in-process engine (docs/ARCHITECTURE.md, "Client library"): pathd's own parts, run
/// inside the client process when no daemon answers: the same Netlink monitor,
/// `KernelStateTracker` and evaluator, the same configuration files
/// (/etc/pathd/pathd.conf and its drop-ins, for expensive and constrained interfaces)
/// and the same resolv.conf watch, so its answers are the daemon's. It follows the path
/// under criteria (`PathMonitor`) or the route to one destination (`PathMonitor.routeUpdates`,
/// with the daemon's `RouteWatcher`).
///
/// Threading: everything below runs on `queue`, a private serial queue; the handler is
/// called there. `@unchecked Sendable`: the tracker's callbacks capture `self` and run
/// on `queue`.
final class InProcessPathSource: @unchecked Sendable {
    enum Event: Sendable {
        /// The path under the criteria changed (or is known for the first time).
        case path(Path)
        /// The route to the watched destination changed (or is known for the first time).
        case route(RouteReport)
        /// The question cannot be asked (a zone that names no interface), as pathd
        /// refuses it with `badArgument`; nothing more comes.
        case refused(String)
        /// The kernel cannot be watched (no netlink in this sandbox); nothing more comes.
        case failed(String)
    }

    private let criteria: Criteria
    /// The route followed instead of the path, if any.
    private let route: WatchedRoute?
    private var routes: RouteWatcher?
    private let configurationFiles: ConfigurationFiles
    private let queue = DispatchQueue(label: "pathd.PathClient.in-process")
    private var kernelState: KernelStateTracker?
    private var resolver: ResolverWatcher?
    private var policy = Policy.standard
    private var lastPath: Path?
    /// The route's last report, judged here from the watcher's answers.
    private var lastRoute: RouteReport?
    private var isCancelled = false

    init(criteria: Criteria, configurationFiles: ConfigurationFiles = ConfigurationFiles()) {
        self.criteria = criteria
        route = nil
        self.configurationFiles = configurationFiles
    }

    /// Follows the route to `route` instead of a path: `.route` events.
    init(route: WatchedRoute, configurationFiles: ConfigurationFiles = ConfigurationFiles()) {
        criteria = .any
        self.route = route
        self.configurationFiles = configurationFiles
    }

    /// Reads the configuration, starts the resolv.conf watch and the netlink monitor;
    /// `handler` gets the first path once the kernel's state is read, then each change.
    /// A configuration with errors is reported in `configurationProblems` and the
    /// built-in policy is used, as a program cannot fix the host's files.
    func start(handler: @escaping @Sendable (Event) -> Void,
               configurationProblems: @escaping @Sendable ([String]) -> Void) {
        queue.async { [self] in
            guard !isCancelled else { return }
            let (result, _) = configurationFiles.load()
            // The daemon's network key too, so that both give a network the same ID.
            let (configuration, keyProblem) = (result.isValid ? result.configuration : .builtIn).readingNetworkKey()
            let diagnostics = result.diagnostics + (keyProblem.map { [$0] } ?? [])
            if !diagnostics.isEmpty { configurationProblems(diagnostics.map(\.description)) }
            policy = configuration.policy
            let settings = configuration.daemon
            let kernelState = Self.kernelState(on: queue, settings: settings)
            if let route {
                let routes = RouteWatcher(kernelState: kernelState, log: .discarding)
                routes.onChange = { [weak self] answered, resync, isCurrent in
                    guard let self, !isCancelled, answered.contains(route),
                          let answer = routes.answer(for: route) else { return }
                    let judged = judged(route, answer, in: kernelState.snapshot)
                    report(judged, resync: resync, isCurrent: isCurrent, handler)
                }
                self.routes = routes
                kernelState.onChange = { [weak self] resync in self?.follow(route, resync: resync, handler) }
            } else {
                kernelState.onChange = { [weak self] _ in self?.evaluate(handler) }
            }
            kernelState.onFatal = { why in handler(.failed(why)) }
            self.kernelState = kernelState
            // DNS first: the first path then already says whether a nameserver is set.
            let resolver = ResolverWatcher(path: settings.resolvConfPath, upstreamPath: settings.upstreamResolvConfPath,
                                           queue: queue, log: .discarding) { configured in
                kernelState.setDNSConfigured(configured)
            }
            self.resolver = resolver
            resolver.start()
            kernelState.start()
        }
    }

    /// Stops the monitor and the watch; nothing is reported afterwards.
    func cancel() {
        queue.async { [self] in
            isCancelled = true
            kernelState?.stop()
            resolver?.cancel()
            kernelState = nil
            resolver = nil
            routes = nil
        }
    }

    /// The kernel's state on `queue`, kept by a `NetlinkMonitor` that looks up routes and
    /// sizes its buffer as `[Daemon]` says (the daemon's own settings); not started yet.
    static func kernelState(on queue: DispatchQueue, settings: DaemonSettings) -> KernelStateTracker {
        let netlink = NetlinkConfiguration(lookupDestinations: settings.lookupDestinations,
                                           receiveBufferBytes: settings.receiveBufferBytes,
                                           resolvesGateways: settings.resolvesGateways)
        return KernelStateTracker(queue: queue, log: .discarding) { generation, callbacks in
            NetlinkMonitor(generation: generation, configuration: netlink,
                           deliver: callbacks.deliver, lost: callbacks.lost, log: { _, _ in })
        }
    }

    /// The kernel's state changed: the first time, starts watching `route` (refused as
    /// pathd refuses it when its zone names no interface); then asks again.
    private func follow(_ route: WatchedRoute, resync: String?, _ handler: @escaping @Sendable (Event) -> Void) {
        guard !isCancelled, let kernelState, let routes else { return }
        guard routes.count == 0 else {
            routes.refresh(resync: resync)
            return
        }
        if let zone = route.zone, kernelState.snapshot.link(zone: zone) == nil {
            handler(.refused(Self.unknownZone(zone, of: route.destination)))
            return
        }
        routes.watch(route, by: RouteHolder("the route sequence")) { [weak self] answer in
            guard let self, !isCancelled else { return }
            switch answer {
            case .success(let answer):
                let report = lastRoute ?? judged(route, answer, in: kernelState.snapshot)
                lastRoute = report
                handler(.route(report))
            case .failure(let error): handler(.failed("the kernel could not be asked for the route: \(error)"))
            }
        }
    }

    /// The watcher's answer judged as pathd judges it (`PathEvaluator.route`).
    private func judged(_ route: WatchedRoute, _ answer: WatchedRouteAnswer, in snapshot: Snapshot) -> RouteReport {
        PathEvaluator.route(to: route.destination, zone: route.zone, answer: answer, snapshot: snapshot, policy: policy)
    }

    /// A newly judged report of the route: sent when it changed while current, and after
    /// a resync whatever it is, as pathd's route subscription does.
    private func report(_ report: RouteReport, resync: String?, isCurrent: Bool,
                        _ handler: @Sendable (Event) -> Void) {
        guard let previous = lastRoute else { return }
        lastRoute = report
        if resync != nil || (isCurrent && report != previous) { handler(.route(report)) }
    }

    private func evaluate(_ handler: @Sendable (Event) -> Void) {
        guard !isCancelled, let kernelState else { return }
        let path = PathEvaluator.evaluate(kernelState.snapshot, policy: policy, criteria: criteria)
        guard path != lastPath else { return }
        lastPath = path
        handler(.path(path))
    }
}
