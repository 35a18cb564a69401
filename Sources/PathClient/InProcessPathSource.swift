import Dispatch
import Netlink
import PathEngine
import PathModel
import ServiceSupport

/// pathd's own engine, run inside the client process when no daemon answers: the same
/// Netlink monitor, snapshot and evaluator, the same configuration files
/// (/etc/pathd/pathd.conf and its drop-ins, for expensive and constrained interfaces)
/// and the same resolv.conf watch, so its answers are the daemon's. It follows the path
/// under criteria (`PathMonitor`) or the route to one destination (`PathMonitor.routeUpdates`,
/// with the daemon's `RouteWatcher`).
///
/// Threading: everything below runs on `queue`, a private serial queue; the handler is
/// called there. `@unchecked Sendable`: the engine's callbacks capture `self` and run
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
    private var engine: PathEngine?
    private var resolver: ResolverWatcher?
    private var policy = Policy.standard
    private var lastPath: Path?
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
            let configuration = result.isValid ? result.configuration : .builtIn
            if !result.diagnostics.isEmpty { configurationProblems(result.diagnostics.map(\.description)) }
            policy = configuration.policy
            let settings = configuration.daemon
            let netlink = NetlinkConfiguration(settings)
            let engine = PathEngine(queue: queue, log: .discarding) { generation, callbacks in
                NetlinkMonitor(generation: generation, configuration: netlink,
                               deliver: callbacks.deliver, lost: callbacks.lost, log: { _, _ in })
            }
            if let route {
                let routes = RouteWatcher(engine: engine, log: .discarding) { [unowned self] destination, lookup in
                    PathEvaluator.route(to: destination, lookup: lookup.route,
                                        throughInterface: lookup.throughInterface,
                                        snapshot: engine.snapshot, policy: policy)
                }
                routes.onChange = { [unowned self] changed, _ in
                    guard !isCancelled, changed.contains(route), let report = routes.report(for: route) else { return }
                    handler(.route(report))
                }
                self.routes = routes
                engine.onChange = { [unowned self] resync in follow(route, resync: resync, handler) }
            } else {
                engine.onChange = { [unowned self] _ in evaluate(handler) }
            }
            engine.onFatal = { why in handler(.failed(why)) }
            self.engine = engine
            // DNS first: the first path then already says whether a nameserver is set.
            let resolver = ResolverWatcher(path: settings.resolvConfPath, upstreamPath: settings.upstreamResolvConfPath,
                                           queue: queue, log: .discarding) { configured in
                engine.setDNSConfigured(configured)
            }
            self.resolver = resolver
            resolver.start()
            engine.start()
        }
    }

    /// Stops the monitor and the watch; nothing is reported afterwards.
    func cancel() {
        queue.async { [self] in
            isCancelled = true
            engine?.stop()
            resolver?.cancel()
            engine = nil
            resolver = nil
            routes = nil
        }
    }

    /// The kernel's state changed: the first time, starts watching `route` (refused as
    /// pathd refuses it when its zone names no interface); then asks again.
    private func follow(_ route: WatchedRoute, resync: String?, _ handler: @escaping @Sendable (Event) -> Void) {
        guard !isCancelled, let engine, let routes else { return }
        guard routes.count == 0 else {
            routes.refresh(resync: resync)
            return
        }
        if let zone = route.zone, engine.snapshot.link(zone: zone) == nil {
            handler(.refused(Self.unknownZone(zone, of: route.destination)))
            return
        }
        routes.watch(route) { [weak self] answer in
            guard let self, !isCancelled else { return }
            switch answer {
            case .success(let report): handler(.route(report))
            case .failure(let error): handler(.failed("the kernel could not be asked for the route: \(error)"))
            }
        }
    }

    private func evaluate(_ handler: @Sendable (Event) -> Void) {
        guard !isCancelled, let engine else { return }
        let path = PathEvaluator.evaluate(engine.snapshot, policy: policy, criteria: criteria)
        guard path != lastPath else { return }
        lastPath = path
        handler(.path(path))
    }
}
