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
/// (`for await path in monitor`) starts itself on a queue of its own if needed. A
/// started monitor keeps itself alive until it is cancelled.
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
    private let monitor: PathMonitor
    private let state = Mutex(State())

    private struct State {
        enum Phase { case idle, running, cancelled }
        var phase = Phase.idle
        var handler: (@Sendable (NWPath) -> Void)?
        /// The path last delivered (to the handler and the iterations); nil before the first.
        var latest: NWPath?
        var streams: [UInt64: AsyncStream<NWPath>.Continuation] = [:]
        var nextStream: UInt64 = 0
    }

    /// Monitors the host's default path, over any interface.
    public init() {
        monitor = PathMonitor()
    }

    /// Monitors paths over interfaces of `requiredInterfaceType` only: "is there a path
    /// over Wi-Fi", not "is the host online".
    public init(requiredInterfaceType: NWInterface.InterfaceType) {
        monitor = PathMonitor(requiredInterfaceType: requiredInterfaceType.linuxType)
    }

    /// Monitors paths as if interfaces of these types did not exist.
    public init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) {
        monitor = PathMonitor(prohibitedInterfaceTypes: prohibitedInterfaceTypes.map(\.linuxType))
    }

    /// Wraps a configured `PathMonitor`, to choose its mode (`.daemon`, `.inProcess`)
    /// or socket. It must not be started yet, and is owned by this monitor from now on:
    /// set no handler on it.
    public init(_ monitor: PathMonitor) {
        self.monitor = monitor
    }

    /// Called on the start queue with each new path. Declared as Apple declares it, so
    /// that a closure that is not `Sendable` is accepted in Swift 5 mode without a
    /// warning, and a `@Sendable` one is required in Swift 6 mode.
    @preconcurrency final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { if $0.phase != .cancelled { $0.handler = newValue } } }
    }

    /// Starts monitoring; the handler is called on `queue`. A second call, or a call
    /// after `cancel`, does nothing.
    final public func start(queue: DispatchQueue) {
        let starting = state.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            return true
        }
        guard starting else { return }
        // The monitor underneath holds this one (through the handler) until cancelled;
        // a `cancel` that raced in between has already made it drop any handler.
        monitor.pathUpdateHandler = { [self] path in deliver(NWPath(path)) }
        monitor.start(queue: queue)
    }

    /// Stops for good: no handler call begins afterwards (see Threading above), and
    /// every `for await` loop over the monitor ends.
    final public func cancel() {
        let streams = state.withLock { state -> [AsyncStream<NWPath>.Continuation] in
            state.phase = .cancelled
            state.handler = nil
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        monitor.cancel()
        for stream in streams { stream.finish() }
    }

    /// The path last delivered; `NWPath.unknown` before the first.
    final public var currentPath: NWPath { state.withLock { $0.latest } ?? .unknown }

    /// The queue given to `start` (or made by iterating), nil before.
    final public var queue: DispatchQueue? { monitor.queue }

    /// The monitor underneath, for its `currentState`, `source` (daemon or in-process)
    /// and `lastError`.
    public var pathMonitor: PathMonitor { monitor }

    /// On the start queue: the monitor underneath calls this only with a path that
    /// differs from the one before.
    private func deliver(_ path: NWPath) {
        let delivery = state.withLock { state -> ((@Sendable (NWPath) -> Void)?, [AsyncStream<NWPath>.Continuation])? in
            guard state.phase == .running else { return nil }
            state.latest = path
            return (state.handler, Array(state.streams.values))
        }
        guard let (handler, streams) = delivery else { return }
        handler?(path)
        for stream in streams { stream.yield(path) }
    }
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

    /// A new iteration; it starts the monitor (on a queue of its own) if nobody has.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream<NWPath>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = state.withLock { state -> UInt64 in
            defer { state.nextStream += 1 }
            return state.nextStream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: key) }
        }
        let registered = state.withLock { state -> Bool in
            guard state.phase != .cancelled else { return false }
            state.streams[key] = continuation
            // Under the lock that `deliver` takes to record a path: the iteration gets
            // the latest one here or the next one from `deliver`, never an older one last.
            if let latest = state.latest { continuation.yield(latest) }
            return true
        }
        if registered {
            start(queue: DispatchQueue(label: "pathd.NWPathMonitor.sequence"))
        } else {
            continuation.finish()
        }
        return Iterator(base: stream.makeAsyncIterator())
    }
}
