// SPDX-License-Identifier: Apache-2.0
import Dispatch
import KernelState
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
/// answer, the engine in this process, handed over as for `PathMonitor` (`SourceHandOver`).
/// Every event is handled on `queue`; the state is behind a lock because `cancel` comes
/// from the iterating task's termination.
private final class RouteUpdateSession: Sendable {
    private let route: WatchedRoute
    private let mode: PathMonitor.Mode
    private let continuation: AsyncThrowingStream<RouteReport, any Error>.Continuation
    private let subscription: RouteSubscription?
    private let queue = DispatchQueue(label: "pathd.PathClient.route-updates")
    private let state: Mutex<State>

    private struct State {
        var handOver: SourceHandOver<InProcessPathSource>
        /// What was yielded last: an answer equal to it is not yielded again.
        var last: RouteReport?
    }

    init(route: WatchedRoute, socketPath: String?, mode: PathMonitor.Mode, backoff: Backoff,
         continuation: AsyncThrowingStream<RouteReport, any Error>.Continuation) {
        self.route = route
        self.mode = mode
        self.continuation = continuation
        state = Mutex(State(handOver: SourceHandOver(mode: mode)))
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
        let opening = state.withLock { $0.handOver.start() }
        opening?.open(on: queue, subscribe: { subscription?.start(queue: queue) { [self] in daemonEvent($0) } },
                      daemonWaitElapsed: { [self] in state.withLock { $0.handOver.daemonWaitElapsed() } },
                      startEngine: { [self] in startInProcess() })
    }

    func cancel() {
        let engine = state.withLock { $0.handOver.cancel() }
        subscription?.cancel()
        engine?.cancel()
    }

    private func daemonEvent(_ event: RouteSubscription.Event) {
        switch event {
        case .route(let update):
            state.withLock { $0.handOver.daemonAnswered(generation: update.generation) }?.cancel()
            yield(update.report)
        case .disconnected(let error):
            let next = state.withLock { $0.handOver.daemonDisconnected(error) }
            if case .refused(.badArgument, _) = error.kind {
                finish(throwing: error)
            } else if next == .startEngine {
                startInProcess()
            }
        case .connected(let socketPath, _, _):
            state.withLock { $0.handOver.daemonConnected(socketPath: socketPath) }
        case .resync:
            break  // the route line follows a resync
        }
    }

    private func startInProcess() {
        let engine = InProcessPathSource(route: route)
        guard let epoch = state.withLock({ $0.handOver.adopt(engine) }) else { return }
        engine.start(handler: { [self] event in
            queue.async { [self] in inProcessEvent(event, epoch: epoch) }
        }, configurationProblems: { _ in })
    }

    private func inProcessEvent(_ event: InProcessPathSource.Event, epoch: UInt64) {
        // The gate: the hand-over drops an answer from an engine that was since stopped.
        switch event {
        case .route(let report):
            guard state.withLock({ $0.handOver.engineAnswered(epoch: epoch) }) else { return }
            yield(report)
        case .refused(let message):
            guard state.withLock({ $0.handOver.accepts(epoch: epoch) }) else { return }
            finish(throwing: InProcessPathSource.badArgument(message))
        case .failed(let why):
            let failed = state.withLock { $0.handOver.engineFailed(epoch: epoch, reason: why) }
            guard let (engine, error) = failed else { return }
            engine.cancel()
            // Only the engine could answer: nothing ever will. With a daemon, wait for it.
            if mode == .inProcess {
                finish(throwing: PathClientError(error.description, kind: .unreachable))
            }
        case .path:
            break  // a route's engine follows no path
        }
    }

    private func yield(_ report: RouteReport) {
        let isNews = state.withLock { state -> Bool in
            guard state.handOver.phase != .cancelled, state.last != report else { return false }
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
