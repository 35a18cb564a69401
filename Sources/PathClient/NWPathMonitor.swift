// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import Synchronization

/// Apple's `NWPathMonitor`, on Linux: code written for the Network framework compiles
/// with `import PathClient` in place of `import Network`. A thin layer over
/// `PathMonitor` in `.automatic` mode (pathd when it answers, pathd's engine in this
/// process when it does not); new code may prefer `PathMonitor`, whose `.unknown`
/// state says plainly that no answer has come yet.
///
/// ```swift
/// let monitor = NWPathMonitor()
/// monitor.pathUpdateHandler = { path in
///     print(path.status == .satisfied ? "online" : "offline", path.availableInterfaces.map(\.name))
/// }
/// monitor.start(queue: DispatchQueue(label: "net"))
/// ```
///
/// As on Apple platforms: the handler is called on the start queue soon after `start`
/// with the current path, then on every change, never twice in a row with the same
/// path; `cancel()` is final; a second `start` does nothing; a monitor that is iterated
/// (`for await path in monitor`) starts itself on a queue of its own if needed, and
/// then stops when the last iteration ends (until the next), unless `start` was called
/// (which also sets the handler's queue and hands it the current path). A started monitor keeps itself
/// alive until it is cancelled.
///
/// Before the first answer `currentPath` is `NWPath.unknown`: status `.unsatisfied`,
/// reason `.notAvailable`, no interfaces, which is what Apple's monitor returns before
/// its first update. It says nothing about the network; do not show "offline" for it.
/// Afterwards it is the path the handler was last called with (it stays so while pathd
/// is being replaced by the in-process engine, or back).
///
/// Threading: every method may be called from any thread. A delivery is checked on the
/// start queue right before the handler is called, so `cancel()` on that queue (from
/// a handler, say) is exact; from another thread, a call that passed its check just
/// before may still run. `@unchecked Sendable`, as Apple declares it: the mutable state
/// is behind a lock, here and in `PathMonitor`.
final public class NWPathMonitor: @unchecked Sendable {
    private let state: Mutex<State>

    private struct State {
        enum Phase { case idle, running, cancelled }
        var phase = Phase.idle
        /// The monitor underneath; a new one once the iterations that started the last
        /// one ended.
        var monitor: PathMonitor
        var handler: (@Sendable (NWPath) -> Void)?
        /// The queue the monitor underneath delivers on (or did, until it stopped): the
        /// first `start`'s, or an iteration's own.
        var deliveryQueue: DispatchQueue?
        /// The queue given to `start`, where the handler is called; nil while only
        /// iterations started the monitor (the handler is then called on theirs).
        var handlerQueue: DispatchQueue?
        /// An iteration started the monitor and `start` was not called: the monitor
        /// underneath is cancelled when the last iteration ends, so a `for await` that
        /// breaks leaves nothing running, and replaced, for the next iteration.
        var startedByIteration = false
        /// The path last delivered (to the handler and the iterations); nil before the first.
        var latest: NWPath?
        /// What `currentPath` returns: `latest`, or the path the app last assigned
        /// (Apple's `currentPath` is settable), until the next delivery.
        var current: NWPath?
        var streams: [UInt64: AsyncStream<NWPath>.Continuation] = [:]
        var nextStream: UInt64 = 0
    }

    /// Monitors the host's default path, over any interface.
    public init() {
        state = Mutex(State(monitor: PathMonitor()))
    }

    /// Monitors paths over interfaces of `requiredInterfaceType` only: "is there a path
    /// over Wi-Fi", not "is the host online".
    public init(requiredInterfaceType: NWInterface.InterfaceType) {
        state = Mutex(State(monitor: PathMonitor(requiredInterfaceType: requiredInterfaceType.linuxType)))
    }

    /// Monitors paths as if interfaces of these types did not exist.
    public init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) {
        state = Mutex(State(monitor: PathMonitor(prohibitedInterfaceTypes: prohibitedInterfaceTypes.map(\.linuxType))))
    }

    /// Wraps a configured `PathMonitor`, to choose its mode (`.daemon`, `.inProcess`),
    /// socket, or the conditions Apple's monitor takes no parameters for
    /// (`NWPathMonitor(PathMonitor(prohibitExpensivePaths: true))`: an expensive path is
    /// then unsatisfied, `linuxUnsatisfiedReason` `.expensiveExcluded`). It must not be
    /// started yet, and is owned by this monitor from now on: set no handler on it.
    public init(_ monitor: PathMonitor) {
        state = Mutex(State(monitor: monitor))
    }

    /// Called on the start queue with each new path. Declared as Apple declares it, so
    /// that a closure that is not `Sendable` is accepted in Swift 5 mode without a
    /// warning, and a `@Sendable` one is required in Swift 6 mode.
    @preconcurrency final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { if $0.phase != .cancelled { $0.handler = newValue } } }
    }

    /// Starts monitoring; the handler is called on `queue`, soon after with the current
    /// path. A second call, or a call after `cancel`, does nothing; but a monitor that only
    /// an iteration started is taken over: the handler is called on `queue` from now on,
    /// first with the current path when one is known, and ending the iterations no longer
    /// cancels it.
    final public func start(queue: DispatchQueue) {
        begin(on: queue, byIteration: false)
    }

    private func begin(on queue: DispatchQueue, byIteration: Bool) {
        let starting = state.withLock { state -> PathMonitor? in
            switch state.phase {
            case .cancelled:
                return nil
            case .idle:
                state.phase = .running
                state.deliveryQueue = queue
                state.startedByIteration = byIteration
                if !byIteration { state.handlerQueue = queue }
                return state.monitor
            case .running:
                guard !byIteration, state.startedByIteration else { return nil }
                state.startedByIteration = false
                state.handlerQueue = queue
                // Under the lock that `deliver` takes: the current path is queued before
                // any newer one.
                if let latest = state.latest { queue.async { [self] in callHandler(latest) } }
                return nil
            }
        }
        guard let monitor = starting else { return }
        // The monitor underneath holds this one (through the handler) until cancelled;
        // a `cancel` that raced in between has already made it drop any handler.
        monitor.pathUpdateHandler = { [self] path in deliver(NWPath(path), from: monitor) }
        monitor.start(queue: queue)
    }

    /// Stops for good: no handler call begins afterwards (see Threading above), and
    /// every `for await` loop over the monitor ends.
    final public func cancel() {
        let (monitor, streams) = state.withLock { state -> (PathMonitor, [AsyncStream<NWPath>.Continuation]) in
            state.phase = .cancelled
            state.handler = nil
            defer { state.streams.removeAll() }
            return (state.monitor, Array(state.streams.values))
        }
        monitor.cancel()
        for stream in streams { stream.finish() }
    }

    /// The path last delivered; `NWPath.unknown` before the first. Settable, as Apple
    /// declares it (a test double or a protocol with `{ get set }` assigns it): the path
    /// assigned is returned until the next delivery, and changes nothing else (which
    /// paths are delivered is decided by the ones delivered before).
    final public var currentPath: NWPath {
        get { state.withLock { $0.current } ?? .unknown }
        set { state.withLock { $0.current = newValue } }
    }

    /// The queue given to `start` (or made by iterating, until `start`), nil before.
    final public var queue: DispatchQueue? { state.withLock { $0.handlerQueue ?? $0.deliveryQueue } }

    /// The monitor underneath, for its `currentState`, `source` (daemon or in-process)
    /// and `lastError`.
    /// (A new one after the iterations that started the monitor ended.)
    public var pathMonitor: PathMonitor { state.withLock { $0.monitor } }

    /// On the delivery queue: the monitor underneath calls this only with a path that
    /// differs from the one before. The handler is called here, or on the queue of a
    /// `start` that came after an iteration started the monitor.
    private func deliver(_ path: NWPath, from origin: PathMonitor) {
        typealias Delivery = (handler: (@Sendable (NWPath) -> Void)?, streams: [AsyncStream<NWPath>.Continuation])
        let delivery = state.withLock { state -> Delivery? in
            // A replaced monitor's late path is dropped; a new one's first path is news
            // only when it differs from the last one delivered.
            guard state.phase == .running, state.monitor === origin, state.latest != path else { return nil }
            state.latest = path
            state.current = path
            let streams = Array(state.streams.values)
            if let handlerQueue = state.handlerQueue, handlerQueue !== state.deliveryQueue {
                handlerQueue.async { [self] in callHandler(path) }
                return (nil, streams)
            }
            return (state.handler, streams)
        }
        guard let delivery else { return }
        delivery.handler?(path)
        for stream in delivery.streams { stream.yield(path) }
    }

    /// On the handler queue, when it is not the delivery queue: the gate, then the call.
    private func callHandler(_ path: NWPath) {
        guard let handler = state.withLock({ $0.phase == .running ? $0.handler : nil }) else { return }
        handler(path)
    }

    /// An iteration ended: the last one stops a monitor that iterations started, and
    /// leaves this one idle with a fresh monitor underneath, for the next iteration or
    /// `start`; the path last delivered stays current.
    private func iterationEnded(_ key: UInt64) {
        let stopped = state.withLock { state -> PathMonitor? in
            state.streams.removeValue(forKey: key)
            guard state.phase == .running, state.startedByIteration, state.streams.isEmpty else { return nil }
            state.phase = .idle
            state.startedByIteration = false
            defer { state.monitor = state.monitor.renewed() }
            return state.monitor
        }
        stopped?.cancel()
    }
}

extension NWPathMonitor: CustomDebugStringConvertible {
    /// The monitor and its current path, for logs (Apple's NWPathMonitor has one too).
    final public var debugDescription: String { "NWPathMonitor: \(currentPath.debugDescription)" }
}

extension NWPathMonitor: AsyncSequence {
    /// Paths.
    public typealias Element = NWPath
    /// Iteration never fails; it ends when the monitor is cancelled.
    public typealias Failure = Never
    /// `Iterator`, under the name AsyncSequence gives it.
    public typealias AsyncIterator = Iterator

    /// Iterates paths: the current one first when one is known, then each change,
    /// until the monitor is cancelled. A slow reader gets the newest path, not a
    /// backlog.
    public struct Iterator: AsyncIteratorProtocol {
        /// Paths.
        public typealias Element = NWPath
        /// Iteration never fails.
        public typealias Failure = Never

        var base: AsyncStream<NWPath>.Iterator

        /// The next path, or nil once the monitor is cancelled.
        public mutating func next() async -> NWPath? {
            await base.next()
        }

        /// The next path, or nil once the monitor is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> NWPath? {
            await base.next(isolation: actor)
        }
    }

    /// A new iteration; it starts the monitor (on a queue of its own) if nobody has. A
    /// monitor that iterations started, and no `start`, stops when the last iteration
    /// ends (a `break` ends one), holding no connection, thread or descriptor; the next
    /// iteration starts it again, beginning with the path last delivered.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream<NWPath>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = state.withLock { state -> UInt64 in
            defer { state.nextStream += 1 }
            return state.nextStream
        }
        continuation.onTermination = { [weak self] _ in self?.iterationEnded(key) }
        let registered = state.withLock { state -> Bool in
            guard state.phase != .cancelled else { return false }
            state.streams[key] = continuation
            // Under the lock that `deliver` takes to record a path: the iteration gets
            // the latest one here or the next one from `deliver`, never an older one last.
            if let latest = state.latest { continuation.yield(latest) }
            return true
        }
        if registered {
            begin(on: DispatchQueue(label: "pathd.NWPathMonitor.sequence"), byIteration: true)
        } else {
            continuation.finish()
        }
        return Iterator(base: stream.makeAsyncIterator())
    }
}
