// SPDX-License-Identifier: Apache-2.0
import Dispatch
import KernelState
import PathModel
import PathEvaluation
import PathConfiguration
import PathProtocol
import ServiceSupport
import SystemCalls

/// The daemon: the kernel's state (`kernelState`, a `KernelStateTracker`) and the parts
/// that serve it to clients, each owning its own state:
///
/// - `ClientAdmission`: the listener, the connections and their budgets, each connection
///   marked trusted or not (`PeerTrust`);
/// - `RequestHandler`: each request line, parsed and answered;
/// - `PathPublisher`: the criteria groups, the subscriptions and the lines they are sent;
/// - `ServiceConfiguration`: the configuration and its reload;
/// - `ConnectivityReports`: pathd-probe's results;
/// - `ServiceRecords`: the counters, the history and the metrics.
///
/// This type starts and stops them and wires them to the kernel's state and to each other.
///
/// Threading, the one rule for all of them: everything runs on `queue`, the state queue,
/// and nothing else. The public entry points below check it with `dispatchPrecondition`,
/// as do the handlers of the Dispatch sources and callbacks that lead into the parts
/// (`ClientAdmission.admit`, `RequestHandler.received`, the route lookup's reply); the
/// parts' other methods are reached from those only. `@unchecked Sendable` (here and on
/// the parts that need it): Dispatch handlers and the tracker's callbacks are closures
/// that capture them, and they all run on `queue`.
public final class PathService: @unchecked Sendable {
    public let queue: DispatchQueue
    /// The kernel's state: sources, generations, the snapshot.
    let kernelState: KernelStateTracker
    let log: Logger
    let records: ServiceRecords
    let configuration: ServiceConfiguration
    let admission: ClientAdmission
    let connectivity: ConnectivityReports
    let publisher: PathPublisher
    let requests: RequestHandler
    /// The routes of `[Watch]`, for the metrics.
    let watchList: WatchList
    /// The networks seen (`networks` request); opened by `start`, with the history.
    private(set) var networks: NetworkRegistry?
    /// What `recordNetworks` last told the registry, without the facts: the same again
    /// would change nothing there, so it is not worked out again (`NetworkSighting`).
    private var recordedSightings: [NetworkID: NetworkSighting] = [:]
    /// Where the history file goes (`$STATE_DIRECTORY`); nil keeps it in memory.
    private let stateDirectory: String?

    enum Lifecycle { case idle, running, stopped }
    private(set) var lifecycle = Lifecycle.idle
    private var firstPathHandlers: [@Sendable () -> Void] = []
    private var fatalHandler: ((String) -> Void)?
    /// Whether the first path was published (clients are accepted from then on).
    private(set) var hasPublished = false

    public enum ReloadPhase: Sendable { case began, ended }

    /// Called on `queue` with the default path each time it is published (the log line,
    /// the service manager's status).
    public var onDefaultPathChange: ((Path) -> Void)?

    /// Called on `queue` when a reload begins and when it has ended (applied or not).
    public var onReload: ((ReloadPhase) -> Void)? {
        get { configuration.onReload }
        set { configuration.onReload = newValue }
    }

    /// Called on `queue` after a client was admitted or left. `package`, not `internal`
    /// reached through `@testable`: DaemonTestSupport, a regular target, waits on it, and a
    /// whole-package release build (`swift build -c release`) compiles nothing for testing.
    package var onClientsChanged: (() -> Void)? {
        get { admission.onClientsChanged }
        set { admission.onClientsChanged = newValue }
    }

    /// `stateDirectory` is where the history is kept across restarts (systemd's
    /// `$STATE_DIRECTORY`); without one it is kept in memory only.
    public init(queue: DispatchQueue, configuration: Configuration = .builtIn, log: Logger,
                scheduler: any Scheduler = DispatchScheduler(), clock: any TimeSource = SystemTimeSource(),
                stateDirectory: String? = nil, makeSource: @escaping PathEventSourceFactory) {
        self.queue = queue
        self.log = log
        self.stateDirectory = stateDirectory
        let kernelState = KernelStateTracker(queue: queue, log: log, scheduler: scheduler, makeSource: makeSource)
        self.kernelState = kernelState
        let records = ServiceRecords(queue: queue, log: log, scheduler: scheduler, clock: clock)
        self.records = records
        let settings = ServiceConfiguration(configuration, queue: queue, log: log, records: records)
        self.configuration = settings
        let admission = ClientAdmission(queue: queue, log: log, scheduler: scheduler, configuration: settings,
                                        limits: configuration.daemon, records: records) { [kernelState] in
            ServerMessage.hello(protocolVersion: ProtocolVersion.current, daemonVersion: DaemonVersion.current,
                                generation: kernelState.generation).encoded()
        }
        self.admission = admission
        let connectivity = ConnectivityReports(kernelState: kernelState, configuration: settings, records: records,
                                               log: log)
        self.connectivity = connectivity
        let publisher = PathPublisher(kernelState: kernelState, configuration: settings, connectivity: connectivity,
                                      admission: admission, records: records, log: log)
        self.publisher = publisher
        requests = RequestHandler(log: log, kernelState: kernelState, configuration: settings, publisher: publisher,
                                  connectivity: connectivity, records: records)
        let watchList = WatchList(queue: queue, log: log, routes: publisher.routes, kernelState: kernelState,
                                  records: records)
        self.watchList = watchList
        // The list's history write waits until the route lines are out, as the default
        // path's does in `publishChanges`.
        publisher.routes.onChange = { [weak publisher, weak watchList] changed, resync in
            // Weak: a round's answer may come after the service was torn down.
            guard let publisher, let watchList else { return }
            publisher.publishRoutes(changed, resync: resync)
            watchList.routesChanged()
        }
        requests.networks = { [weak self] in self?.networks }
        requests.reload = { [weak self] requester, completion in
            self?.reloadConfiguration(requestedBy: requester, completion: completion)
        }
        admission.onRequest = { [requests] connection, line in requests.received(line, from: connection) }
        admission.onClosed = { [publisher] connection in publisher.forgetSubscriptions(of: connection) }
        publisher.onDefaultPathChange = { [weak self, weak watchList] path, previous, publishedAt in
            guard let self, let watchList else { return }
            onDefaultPathChange?(path)
            guard previous != path else { return }
            recordNetworks(of: path, at: publishedAt)
            // A name's addresses may have changed with the path (another resolver, a VPN's DNS).
            if previous != nil { watchList.pathChanged() }
        }
    }

    // MARK: Life cycle

    /// Starts the first event source; returns at once. The first path arrives
    /// asynchronously (`whenFirstPathKnown`); if the kernel cannot be watched at all,
    /// `onFatal` is called instead.
    public func start(onFatal: @escaping (String) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(lifecycle == .idle, "a PathService is started once")
        lifecycle = .running
        fatalHandler = onFatal
        kernelState.onChange = { [weak self] resync in self?.stateChanged(resync: resync) }
        kernelState.onSourceLost = { [weak self] loss in self?.records.recordSourceLost(loss) }
        kernelState.onFatal = { [weak self] why in self?.fatalHandler?(why) }
        // The kernel's dump starts first; the history's file is read meanwhile. Batches
        // hop onto this queue, so the start mark is still recorded before the first path.
        kernelState.start()
        let daemon = configuration.current.daemon
        records.open(historySize: daemon.historySize, stateDirectory: stateDirectory,
                     metricsFilePath: daemon.metricsFilePath) { [weak self] in self?.currentMetrics() }
        networks = NetworkRegistry(directory: stateDirectory, queue: queue, scheduler: records.scheduler, log: log)
    }

    /// Serves clients on `listener` once the first path exists.
    public func serve(_ listener: UnixListener) {
        dispatchPrecondition(condition: .onQueue(queue))
        admission.listen(on: listener)
        if hasPublished && lifecycle == .running { admission.startAccepting() }
    }

    /// Calls `handler` on the queue once the first path is known (at once if it is).
    public func whenFirstPathKnown(_ handler: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        if hasPublished { handler() } else { firstPathHandlers.append(handler) }
    }

    /// Stops: tells every client, stops listening (removing the socket file it bound)
    /// and cancels the source.
    public func stop(reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running else { return }
        lifecycle = .stopped
        // First: the stop mark, and no metrics file written for the disconnects below.
        records.close()
        networks?.close(at: records.clock.now().wall)
        admission.stop(goodbye: ServerMessage.error(code: .shuttingDown, message: "pathd is stopping: \(reason)",
                                                    id: nil).encoded())
        kernelState.stop()
    }

    /// The current path for `criteria` (nil before the first), for tests and the log. A
    /// read: it publishes nothing, and subscribes nobody to `criteria`.
    public func currentPath(for criteria: Criteria = .any) -> Path? {
        dispatchPrecondition(condition: .onQueue(queue))
        return hasPublished ? publisher.path(for: criteria) : nil
    }

    /// The number of connected clients.
    public var clientCount: Int {
        dispatchPrecondition(condition: .onQueue(queue))
        return admission.clients.count
    }

    // MARK: Inputs

    /// Whether the resolver configuration names a nameserver (from the resolv.conf watcher).
    public func setDNSConfigured(_ configured: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        kernelState.setDNSConfigured(configured)
    }

    /// Installs what `reloadConfiguration` calls to read the files.
    public func setConfigurationReloader(_ reloader: @escaping ConfigurationReloader) {
        dispatchPrecondition(condition: .onQueue(queue))
        configuration.reloader = reloader
    }

    /// Reads the configuration again, off this queue, and applies it if valid; logs the
    /// outcome and calls `completion` with it, on this queue.
    public func reloadConfiguration(requestedBy requester: String,
                                    completion: @escaping @Sendable (ConfigurationReload) -> Void = { _ in }) {
        dispatchPrecondition(condition: .onQueue(queue))
        configuration.reload(requestedBy: requester, applied: { [weak self] in self?.configurationApplied() },
                             completion: completion)
    }

    /// Swaps in a validated configuration in one step and publishes the paths it changed.
    public func reconfigure(_ configuration: Configuration) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.configuration.apply(configuration)
        configurationApplied()
    }

    private func configurationApplied() {
        // A reload read while the daemon stopped: nothing left to apply it to.
        guard lifecycle != .stopped else { return }
        admission.applyLimits()
        // Before the first path there is nothing to re-evaluate: the first batch will
        // be evaluated under the new policy.
        guard kernelState.hasState else { return }
        publisher.publishChanges()
        publisher.routes.reevaluate()
        watchList.apply(configuration.current.watch)
    }

    private func stateChanged(resync: String?) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running else { return }
        let firstPath = !hasPublished
        hasPublished = true
        records.recordStateChange(resync: resync)
        publisher.publishChanges(resync: resync)
        publisher.routes.refresh(resync: resync)
        if firstPath {
            watchList.apply(configuration.current.watch)
            let handlers = firstPathHandlers
            firstPathHandlers.removeAll()
            for handler in handlers { handler() }
            if admission.isListening { admission.startAccepting() }
        }
    }

    // MARK: Networks

    /// The identified networks of `path`'s links, with their facts (`InterfaceReport`
    /// reads them for the link), told to the registry: once per change of the default
    /// path, which a network's change on a link is. A change that leaves the networks,
    /// their names, links and domains as they were (a route's, most often) tells it
    /// nothing: `NetworkRegistry.update` would find nothing to change, and a link's
    /// report, worked out again for its facts, is the costliest part of a change after
    /// its line. The registry changes only here (and at the stop), so what was last told
    /// it is what it holds.
    private func recordNetworks(of path: Path, at now: Timestamp) {
        guard let networks else { return }
        let snapshot = kernelState.snapshot
        var sightings: [NetworkID: NetworkSighting] = [:]
        var links: [NetworkID: Link] = [:]
        for interface in path.availableInterfaces {
            guard let network = interface.network, network.state == .identified, let id = network.id,
                  let link = snapshot.links[interface.index] else { continue }
            if sightings[id] == nil {
                let domains = snapshot.hints[link.index]?.dnsDomains ?? []
                sightings[id] = NetworkSighting(name: network.name, domains: domains)
                links[id] = link
            }
            sightings[id]?.interfaces.append(interface.name)
        }
        guard sightings != recordedSightings else { return }
        let policy = configuration.current.policy
        var seen: [SeenNetwork] = []
        for (id, sighting) in sightings {
            guard let link = links[id], let facts = InterfaceReport.report(for: link, in: snapshot, policy: policy)
                .networkFacts else { continue }
            seen.append(SeenNetwork(id: id, name: sighting.name, facts: facts, interfaces: sighting.interfaces,
                                    domains: sighting.domains, firstSeen: now.wall, lastSeen: now.wall,
                                    isCurrent: true))
        }
        networks.update(current: seen, at: now.wall)
        // A network whose facts could not be read is asked about again at the next change.
        recordedSightings = seen.count == sightings.count ? sightings : [:]
    }

    // MARK: Metrics

    /// Everything the metrics say now (docs/PROTOCOL.md, `metrics`; pathd(8), METRICS),
    /// read from the parts when asked.
    private func currentMetrics() -> DaemonMetrics {
        let now = records.clock.now()
        let path = publisher.path(for: .any)
        let counters = records.counters
        let reports = InterfaceReport.reports(for: kernelState.snapshot, policy: configuration.current.policy)
        return DaemonMetrics(
            path: .init(path: path, changes: counters.pathChanges, unsatisfiedTime: counters.unsatisfiedTime(at: now),
                        lastChange: counters.lastPathChange?.wall),
            interfaces: .init(reports: reports, path: path),
            connectivity: .init(path: connectivity.connectivity(of: path), reports: connectivity.latest,
                                reportCounts: counters.connectivityReports),
            daemon: .init(counters: counters, generation: kernelState.generation, clients: admission.clients.count,
                          subscriptions: publisher.subscriptions.count, startTime: records.startTime.wall),
            routes: .init(watchList.hosts.map { state in
                .init(host: state.host.description,
                      routes: state.routes.map { ($0.destination, publisher.routes.report(for: $0)) },
                      unresolved: state.unresolved, unusableTime: state.unusable.total(at: now))
            }))
    }
}
