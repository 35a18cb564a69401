import Dispatch
import PathEngine
import PathModel
import PathSocketClient
import Synchronization

extension PathMonitor {
    /// The route to `destination` now and at each change, as an `AsyncSequence`: the
    /// answer `route(to:)` gives once (the kernel's route, judged as pathd judges paths),
    /// then a new one whenever it changes (status, reason, interface, source, gateway,
    /// table, costs), and none for changes that leave it as it was.
    ///
    /// ```swift
    /// for try await route in PathMonitor.routeUpdates(to: "198.51.100.7") {
    ///     if route.isUsable && !route.isExpensive { resumeSync() } else { pauseSync(route.summary) }
    /// }
    /// ```
    ///
    /// `mode` picks who answers, as for a monitor: `.automatic` subscribes to pathd
    /// (`subscribe` with a `destination`, docs/PROTOCOL.md) and, while no daemon answers
    /// (none within `daemonAnswerWait`, or it went away), follows the route with pathd's
    /// engine in this process, the same code, so a hand-over yields nothing when the
    /// answer is the same; `.daemon` only pathd (nothing is yielded while it is away:
    /// the route is then unknown, which is not unusable); `.inProcess` only the engine
    /// here. The sequence ends when the task iterating it is cancelled, and throws
    /// `PathClientError` for a question pathd would refuse (`badArgument`: a zone on an
    /// address that takes none, or one that names no interface) and when the engine
    /// here cannot watch the kernel in `.inProcess` mode.
    ///
    /// `zone` is the interface of a link-local IPv6 destination, by name or index.
    public static func routeUpdates(to destination: PathModel.IPAddress, zone: String? = nil,
                                    socketPath: String? = nil, mode: Mode = .automatic,
                                    backoff: Backoff = .standard) -> AsyncThrowingStream<RouteReport, any Error> {
        AsyncThrowingStream { continuation in
            let session = RouteUpdateSession(route: WatchedRoute(destination: destination, zone: zone),
                                             socketPath: socketPath, mode: mode, backoff: backoff,
                                             continuation: continuation)
            continuation.onTermination = { _ in session.cancel() }
            session.start()
        }
    }

    /// `routeUpdates(to:)` for an address in text (`"198.51.100.7"`, `"fe80::1%eth0"` with
    /// its zone). A host name is refused, not resolved (the sequence throws at once).
    public static func routeUpdates(to destination: String, socketPath: String? = nil,
                                    mode: Mode = .automatic) -> AsyncThrowingStream<RouteReport, any Error> {
        guard let (address, zone) = RouteZone.split(destination) else {
            return AsyncThrowingStream {
                throw PathClientError("\"\(destination)\" is not an IP address; resolve names first")
            }
        }
        return routeUpdates(to: address, zone: zone, socketPath: socketPath, mode: mode)
    }
}

/// One `routeUpdates` sequence: the daemon's route subscription and, when it does not
/// answer, the engine in this process, with the rule of `PathMonitor` between them (the
/// daemon's answers win and stop the engine). Every event is handled on `queue`; the
/// state is behind a lock because `cancel` comes from the iterating task's termination.
private final class RouteUpdateSession: Sendable {
    private let route: WatchedRoute
    private let mode: PathMonitor.Mode
    private let continuation: AsyncThrowingStream<RouteReport, any Error>.Continuation
    private let subscription: RouteSubscription?
    private let queue = DispatchQueue(label: "pathd.PathClient.route-updates")
    private let state = Mutex(State())

    private struct State {
        var isCancelled = false
        /// The daemon delivered a route on its current connection.
        var daemonAnswers = false
        var inProcess: InProcessPathSource?
        /// Bumped each time the engine here is started or stopped; its answers carry it.
        var epoch: UInt64 = 0
        /// What was yielded last: an answer equal to it is not yielded again.
        var last: RouteReport?

        mutating func detachInProcess() -> InProcessPathSource? {
            epoch &+= 1
            defer { inProcess = nil }
            return inProcess
        }
    }

    init(route: WatchedRoute, socketPath: String?, mode: PathMonitor.Mode, backoff: Backoff,
         continuation: AsyncThrowingStream<RouteReport, any Error>.Continuation) {
        self.route = route
        self.mode = mode
        self.continuation = continuation
        subscription = mode == .inProcess ? nil
            : RouteSubscription(destination: route.destination, zone: route.zone, socketPath: socketPath,
                                backoff: backoff)
    }

    func start() {
        // Refused here as pathd refuses it, whoever would have answered.
        if let zone = route.zone, let problem = InProcessPathSource.zoneProblem(zone, of: route.destination) {
            finish(throwing: InProcessPathSource.badArgument(problem))
            return
        }
        guard let subscription else {
            startInProcess()
            return
        }
        subscription.start(queue: queue) { [self] event in daemonEvent(event) }
        if mode == .automatic {
            queue.asyncAfter(deadline: .now() + PathMonitor.daemonAnswerWait.dispatchInterval) { [self] in
                if state.withLock({ !$0.isCancelled && !$0.daemonAnswers }) { startInProcess() }
            }
        }
    }

    func cancel() {
        let engine = state.withLock { state -> InProcessPathSource? in
            state.isCancelled = true
            return state.detachInProcess()
        }
        subscription?.cancel()
        engine?.cancel()
    }

    private func daemonEvent(_ event: RouteSubscription.Event) {
        switch event {
        case .route(let update):
            let stopped = state.withLock { state -> InProcessPathSource? in
                state.daemonAnswers = true
                return state.detachInProcess()
            }
            stopped?.cancel()
            yield(update.report)
        case .disconnected(let error):
            state.withLock { $0.daemonAnswers = false }
            if case .refused(.badArgument, _) = error.kind {
                finish(throwing: error)
            } else if mode == .automatic {
                startInProcess()
            }
        case .connected, .resync:
            break  // the route line follows a resync
        }
    }

    private func startInProcess() {
        let engine = InProcessPathSource(route: route)
        let epoch = state.withLock { state -> UInt64? in
            guard !state.isCancelled, state.inProcess == nil, !state.daemonAnswers else { return nil }
            state.inProcess = engine
            state.epoch &+= 1
            return state.epoch
        }
        guard let epoch else { return }
        engine.start(handler: { [self] event in
            queue.async { [self] in inProcessEvent(event, epoch: epoch) }
        }, configurationProblems: { _ in })
    }

    private func inProcessEvent(_ event: InProcessPathSource.Event, epoch: UInt64) {
        // The gate: an answer from an engine that was since stopped is dropped here.
        guard state.withLock({ !$0.isCancelled && $0.epoch == epoch && !$0.daemonAnswers }) else { return }
        switch event {
        case .route(let report):
            yield(report)
        case .refused(let message):
            finish(throwing: InProcessPathSource.badArgument(message))
        case .failed(let why):
            let failed = state.withLock { $0.detachInProcess() }
            failed?.cancel()
            // Only the engine could answer: nothing ever will. With a daemon, wait for it.
            if mode == .inProcess {
                finish(throwing: PathClientError("the in-process engine cannot watch the kernel: \(why)",
                                                 kind: .unreachable))
            }
        case .path:
            break  // a route's engine follows no path
        }
    }

    private func yield(_ report: RouteReport) {
        let isNews = state.withLock { state -> Bool in
            guard !state.isCancelled, state.last != report else { return false }
            state.last = report
            return true
        }
        if isNews { continuation.yield(report) }
    }

    private func finish(throwing error: PathClientError) {
        cancel()
        continuation.finish(throwing: error)
    }
}
