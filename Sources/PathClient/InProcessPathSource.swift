import Dispatch
import Netlink
import PathEngine
import PathModel
import ServiceSupport

/// pathd's own engine, run inside the client process when no daemon answers: the same
/// Netlink monitor, snapshot and evaluator, the same configuration files
/// (/etc/pathd/pathd.conf and its drop-ins, for expensive and constrained interfaces)
/// and the same resolv.conf watch, so its answers are the daemon's.
///
/// Threading: everything below runs on `queue`, a private serial queue; the handler is
/// called there. `@unchecked Sendable`: the engine's callbacks capture `self` and run
/// on `queue`.
final class InProcessPathSource: @unchecked Sendable {
    enum Event: Sendable {
        /// The path under the criteria changed (or is known for the first time).
        case path(Path)
        /// The kernel cannot be watched (no netlink in this sandbox); nothing more comes.
        case failed(String)
    }

    private let criteria: Criteria
    private let configurationFiles: ConfigurationFiles
    private let queue = DispatchQueue(label: "pathd.PathClient.in-process")
    private var engine: PathEngine?
    private var resolver: ResolverWatcher?
    private var policy = Policy.standard
    private var lastPath: Path?
    private var isCancelled = false

    init(criteria: Criteria, configurationFiles: ConfigurationFiles = ConfigurationFiles()) {
        self.criteria = criteria
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
            engine.onChange = { [unowned self] _ in evaluate(handler) }
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
