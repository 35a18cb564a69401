// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathSocketClient
import Synchronization
import SystemCalls

/// NWPathMonitor for Linux, in Linux's own words: subscribes to pathd and calls your
/// handlers on your queue with every new path; when no daemon answers, evaluates the
/// path in this process with pathd's own engine, and moves back to the daemon when it
/// appears.
///
/// ```swift
/// let monitor = PathMonitor(requiredInterfaceType: .wifi)
/// monitor.stateUpdateHandler = { state in
///     switch state {
///     case .unknown: break                        // no answer yet: not offline
///     case .available(let path): print("online via", path.availableInterfaces.map(\.name))
///     case .needsConnection: print("an on-demand link would come up")
///     case .unavailable(let path): print("offline:", path.summary)
///     }
/// }
/// monitor.start(queue: .main)
/// ```
///
/// Until the first answer the state is `.unknown`, and unknown is not offline: never
/// block a request on it. A monitor can be cancelled, never restarted; make a new one.
/// A started monitor keeps itself alive until it is cancelled.
///
/// Where the answers come from is `mode` (`.automatic` unless told) and the socket
/// search order (`socketPath`, else `SocketPath.clientSearchOrder`); `source` says which
/// one answered last.
///
/// Threading: `start` and `cancel` may be called from any thread; handlers run on the
/// start queue, one at a time, in order. Every answer carries the source it came from
/// (a daemon connection or the in-process engine); one from a source that was since
/// replaced, or that arrives after `cancel`, is dropped on the start queue, right
/// before the handlers would be called. So `cancel()` on the start queue is exact;
/// from another thread, a call that passed that check just before may still run.
public final class PathMonitor: Sendable {
    /// Where answers come from.
    public enum Mode: Hashable, Sendable {
        /// pathd when it answers; pathd's engine in this process when it does not (no
        /// daemon installed, a container, CI), or has sent no path within
        /// `daemonAnswerWait` (a daemon that hangs), back to pathd when it answers. The
        /// engines are the same code, so a hand-over with the same path calls no handler.
        case automatic
        /// pathd only: while it cannot be reached the state is `.unknown`.
        case daemon
        /// pathd's engine in this process only (needs no daemon, reads netlink itself).
        case inProcess
    }

    /// What a program needs to know about the network, in four words.
    public enum State: Hashable, Sendable {
        /// No answer yet, or the daemon went away in `.daemon` mode. Not offline.
        case unknown
        /// A usable path exists (NWPath's `.satisfied`).
        case available(Path)
        /// Only an on-demand interface could carry traffic; it would come up if used
        /// (NWPath's `.requiresConnection`).
        case needsConnection(Path)
        /// No usable path; `path.unsatisfiedReason` says why (NWPath's `.unsatisfied`).
        /// Also a path whose status a newer pathd sent and this version does not know
        /// (`path.status` keeps its name): nothing is promised about it.
        case unavailable(Path)

        /// The state a known path is in.
        public init(_ path: Path) {
            switch path.status {
            case .satisfied: self = .available(path)
            case .requiresConnection: self = .needsConnection(path)
            case .unsatisfied, .unrecognized: self = .unavailable(path)
            }
        }

        /// The path, unless unknown.
        public var path: Path? {
            switch self {
            case .unknown: nil
            case .available(let path), .needsConnection(let path), .unavailable(let path): path
            }
        }
    }

    /// Which source the current answer came from.
    public enum Source: Hashable, Sendable {
        /// Nothing answered yet, or nothing answers.
        case none
        /// pathd at `socketPath`. `generation` is the daemon's kernel-state generation
        /// (it grows when the daemon re-reads the kernel after lost events);
        /// `connection` counts this monitor's connections to a daemon, from 1, so a
        /// daemon that came back shows as a new connection even when its generation
        /// starts over.
        case daemon(socketPath: String, generation: Generation, connection: UInt64)
        /// pathd's engine in this process.
        case inProcess
    }

    /// How long `.automatic` waits for a daemon's first path before it starts the engine
    /// in this process too: a socket that accepts and stays silent (a daemon that hangs)
    /// must not leave the program without an answer for the daemon's hello deadline.
    /// The daemon's path still wins when it comes, and stops the engine. One second:
    /// a live pathd answers in milliseconds; GLib's module (gio-module/) waits 500 ms.
    public static let daemonAnswerWait = Duration.seconds(1)

    /// The interface type every path must use (nil: any), as given to `init`.
    public let requiredInterfaceType: InterfaceType?
    /// The interface types paths are evaluated without, as given to `init`.
    public let prohibitedInterfaceTypes: [InterfaceType]
    /// An expensive path is unavailable (`.expensiveExcluded`), as given to `init`.
    public let prohibitExpensivePaths: Bool
    /// A constrained path is unavailable (`.constrainedExcluded`), as given to `init`.
    public let prohibitConstrainedPaths: Bool
    /// Only a path whose first interface is on this network counts (`.networkExcluded`
    /// otherwise), as given to `init`.
    public let requiredNetwork: String?
    /// A path whose first interface is on one of these networks is unavailable
    /// (`.networkExcluded`), as given to `init`.
    public let prohibitedNetworks: [String]
    /// Where answers may come from, as given to `init`.
    public let mode: Mode
    private let criteria: Criteria
    private let socketPath: String?
    private let backoff: Backoff
    private let scheduler: any Scheduler
    private let subscription: DaemonSubscription?
    private let state: Mutex<MonitorState>

    private struct MonitorState {
        /// Which source serves, its lifecycle, `source` and `lastError`.
        var handOver: SourceHandOver<InProcessPathSource>
        var queue: DispatchQueue?
        var pathHandler: (@Sendable (Path) -> Void)?
        var stateHandler: (@Sendable (State) -> Void)?
        var connectivityHandler: (@Sendable (Connectivity) -> Void)?
        var current = State.unknown
        /// The path the path handler was last called with: it is called again only
        /// with a different one (the state may pass through `.unknown` in between).
        var lastPath: Path?
        var connectivity = Connectivity.unknown

        var isCancelled: Bool { handOver.phase == .cancelled }
    }

    /// `requiredInterfaceType` and `prohibitedInterfaceTypes` choose the interfaces that
    /// count, as NWPathMonitor's initialisers do; `prohibitExpensivePaths` and
    /// `prohibitConstrainedPaths` judge the path they give, as NWParameters' properties of
    /// those names judge a connection's: an expensive (constrained) path is then
    /// `.unavailable`, `unsatisfiedReason` `.expensiveExcluded` (`.constrainedExcluded`),
    /// whether pathd or the engine in this process answers (`Criteria`).
    /// `requiredNetwork` and `prohibitedNetworks` (pathd's own, no NWParameters property)
    /// name networks by `[Network] Name=` or ID: a path whose first interface is not on
    /// the required one, or is on a prohibited one, is `.unavailable`, `.networkExcluded`;
    /// a network not yet identified is on none. pathd refuses a name its configuration
    /// does not define (`unknownNetwork`: `lastError` says so, and the monitor tries again
    /// as after any refusal); the engine in this process finds it on no network. `socketPath` nil
    /// searches for the daemon as `PathConnection.connect(to:)` does
    /// (`SocketPath.clientSearchOrder`).
    public init(requiredInterfaceType: InterfaceType? = nil, prohibitedInterfaceTypes: [InterfaceType] = [],
                prohibitExpensivePaths: Bool = false, prohibitConstrainedPaths: Bool = false,
                requiredNetwork: String? = nil, prohibitedNetworks: [String] = [],
                socketPath: String? = nil, mode: Mode = .automatic, backoff: Backoff = .standard,
                scheduler: any Scheduler = DispatchScheduler()) {
        self.requiredInterfaceType = requiredInterfaceType
        self.prohibitedInterfaceTypes = prohibitedInterfaceTypes
        self.prohibitExpensivePaths = prohibitExpensivePaths
        self.prohibitConstrainedPaths = prohibitConstrainedPaths
        self.requiredNetwork = requiredNetwork
        self.prohibitedNetworks = prohibitedNetworks
        self.mode = mode
        let criteria = Criteria(requiredInterfaceType: requiredInterfaceType,
                                prohibitedInterfaceTypes: Set(prohibitedInterfaceTypes),
                                prohibitExpensivePaths: prohibitExpensivePaths,
                                prohibitConstrainedPaths: prohibitConstrainedPaths,
                                requiredNetwork: requiredNetwork, prohibitedNetworks: Set(prohibitedNetworks))
        self.criteria = criteria
        self.socketPath = socketPath
        self.backoff = backoff
        self.scheduler = scheduler
        state = Mutex(MonitorState(handOver: SourceHandOver(mode: mode)))
        subscription = mode == .inProcess ? nil
            : DaemonSubscription(criteria: criteria, socketPath: socketPath, backoff: backoff, scheduler: scheduler)
    }

    /// A monitor not started yet, made as this one was (for `NWPathMonitor`, which stops
    /// the monitor its iterations started when the last one ends).
    func renewed() -> PathMonitor {
        PathMonitor(requiredInterfaceType: requiredInterfaceType, prohibitedInterfaceTypes: prohibitedInterfaceTypes,
                    prohibitExpensivePaths: prohibitExpensivePaths, prohibitConstrainedPaths: prohibitConstrainedPaths,
                    requiredNetwork: requiredNetwork, prohibitedNetworks: prohibitedNetworks, socketPath: socketPath,
                    mode: mode, backoff: backoff, scheduler: scheduler)
    }

    /// Called on the start queue with each new path: the first one, then each that
    /// differs from the last one it was called with. Not called when the state becomes
    /// `.unknown`, nor when a path comes back unchanged after it. Set it before `start`;
    /// a cancelled monitor keeps no handler (setting one then does nothing).
    public var pathUpdateHandler: (@Sendable (Path) -> Void)? {
        get { state.withLock { $0.pathHandler } }
        set { state.withLock { if !$0.isCancelled { $0.pathHandler = newValue } } }
    }

    /// Called on the start queue with each new state, `.unknown` included. Set it
    /// before `start`; a cancelled monitor keeps no handler.
    public var stateUpdateHandler: (@Sendable (State) -> Void)? {
        get { state.withLock { $0.stateHandler } }
        set { state.withLock { if !$0.isCancelled { $0.stateHandler = newValue } } }
    }

    /// Called on the start queue with each new connectivity verdict (pathd-probe's check
    /// of the path's first interface: captive portal, dead uplink; docs/PROTOCOL.md,
    /// "Connectivity"), `.unknown` included. Separate from the path on purpose: a
    /// connectivity change never calls `pathUpdateHandler` or `stateUpdateHandler`, and a
    /// portal never makes a path unsatisfied.
    public var connectivityUpdateHandler: (@Sendable (Connectivity) -> Void)? {
        get { state.withLock { $0.connectivityHandler } }
        set { state.withLock { $0.connectivityHandler = newValue } }
    }

    /// The latest connectivity verdict; `.unknown` until pathd reports one, and whenever
    /// the answer does not come from pathd (the in-process engine checks nothing).
    public var currentConnectivity: Connectivity { state.withLock { $0.connectivity } }

    /// The latest state. Changed on the start queue, in order with the handlers' calls.
    public var currentState: State { state.withLock { $0.current } }

    /// The latest path, or nil while unknown.
    public var currentPath: Path? { currentState.path }

    /// Where the latest answer came from.
    public var source: Source { state.withLock { $0.handOver.source } }

    /// Why the daemon could not be used lately (no socket, refused, went away), or nil
    /// since one answered. For logs: it is no verdict on the network.
    public var lastError: PathClientError? { state.withLock { $0.handOver.lastError } }

    /// The queue given to `start`, or nil before.
    public var queue: DispatchQueue? { state.withLock { $0.queue } }

    /// Starts monitoring; handlers are called on `queue`. A second call, or a call
    /// after `cancel`, does nothing.
    public func start(queue: DispatchQueue) {
        let opening = state.withLock { state -> SourceHandOver<InProcessPathSource>.Opening? in
            guard let opening = state.handOver.start() else { return nil }
            state.queue = queue
            return opening
        }
        opening?.open(on: queue, subscribe: { subscription?.start(queue: queue) { [self] in daemonEvent($0) } },
                      daemonWaitElapsed: { [self] in state.withLock { $0.handOver.daemonWaitElapsed() } },
                      startEngine: { [self] in startInProcess() })
    }

    /// Stops for good: no handler call begins afterwards (see Threading above), the
    /// daemon connection is closed and the in-process engine stopped.
    public func cancel() {
        let engine = state.withLock { state -> InProcessPathSource? in
            state.pathHandler = nil
            state.stateHandler = nil
            state.connectivityHandler = nil
            return state.handOver.cancel()
        }
        subscription?.cancel()
        engine?.cancel()
    }

    // MARK: Sources (all on the start queue)

    private func daemonEvent(_ event: DaemonSubscription.Event) {
        switch event {
        case .connected(let socketPath, _, _):
            state.withLock { $0.handOver.daemonConnected(socketPath: socketPath) }
        case .resync:
            // The daemon's path line follows a resync, with the new generation.
            break
        case .path(let update):
            state.withLock { $0.handOver.daemonAnswered(generation: update.generation) }?.cancel()
            // Both are recorded before any handler runs, so a path handler that reads
            // `currentConnectivity` sees the verdict that came with its path.
            let pathCalls = record(State(update.path))
            let connectivityCall = record(update.connectivity)
            pathCalls?()
            connectivityCall?()
        case .disconnected(let error):
            let next = state.withLock { $0.handOver.daemonDisconnected(error) }
            let stateCalls = next == .unknown ? record(State.unknown) : nil
            let connectivityCall = record(Connectivity.unknown)
            stateCalls?()
            connectivityCall?()
            // In automatic mode the path stays as it was until the engine here answers.
            if next == .startEngine { startInProcess() }
        }
    }

    private func startInProcess() {
        let engine = InProcessPathSource(criteria: criteria)
        let started = state.withLock { state -> (DispatchQueue, UInt64)? in
            guard let queue = state.queue, let epoch = state.handOver.adopt(engine) else { return nil }
            return (queue, epoch)
        }
        guard let (queue, epoch) = started else { return }
        engine.start(handler: { [self] event in
            queue.async { [self] in inProcessEvent(event, epoch: epoch) }
        }, configurationProblems: { [self] problems in
            queue.async { [self] in state.withLock { $0.handOver.engineIgnoredConfiguration(problems) } }
        })
    }

    private func inProcessEvent(_ event: InProcessPathSource.Event, epoch: UInt64) {
        // The gate: the hand-over drops an answer from an engine that was since stopped.
        switch event {
        case .path(let path):
            guard state.withLock({ $0.handOver.engineAnswered(epoch: epoch) }) else { return }
            record(State(path))?()
        case .route, .refused:
            break  // a path's engine follows no route
        case .failed(let why):
            let failed = state.withLock { state -> (engine: InProcessPathSource, wasKnown: Bool)? in
                guard let (engine, _) = state.handOver.engineFailed(epoch: epoch, reason: why) else { return nil }
                return (engine, state.current != .unknown)
            }
            guard let failed else { return }
            failed.engine.cancel()
            if failed.wasKnown { record(State.unknown)?() }
        }
    }

    /// Records a connectivity verdict (a confirmation too, for its new timings) and returns
    /// the call of its handler, unless the verdict is what the handler last saw.
    private func record(_ next: Connectivity) -> (() -> Void)? {
        let handler = state.withLock { state -> (@Sendable (Connectivity) -> Void)?? in
            guard state.handOver.isRunning else { return nil }
            let isNews = state.connectivity.verdict != next.verdict
            state.connectivity = next
            return isNews ? .some(state.connectivityHandler) : nil
        }
        guard case .some(let handler?) = handler else { return nil }
        return { handler(next) }
    }

    /// Records `next` and returns the calls of the handlers that have not seen it: the
    /// state handler when the state changed, the path handler when the path differs from
    /// its last. The caller makes them, outside the lock.
    private func record(_ next: State) -> (() -> Void)? {
        typealias Calls = (path: (@Sendable (Path) -> Void)?, state: (@Sendable (State) -> Void)?)
        let calls = state.withLock { state -> Calls? in
            guard state.handOver.isRunning, state.current != next else { return nil }
            state.current = next
            var calls: Calls = (nil, state.stateHandler)
            if let path = next.path, path != state.lastPath {
                state.lastPath = path
                calls.path = state.pathHandler
            }
            return calls
        }
        guard let calls else { return nil }
        return {
            if let path = next.path { calls.path?(path) }
            calls.state?(next)
        }
    }
}
