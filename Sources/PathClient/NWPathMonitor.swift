import Dispatch
import PathModel
import Synchronization

/// Apple's `NWPathMonitor`, on Linux: code written for the Network framework compiles
/// with `import PathClient` in place of `import Network`. A thin layer over
/// `PathMonitor` (automatic mode: pathd when it answers, pathd's engine in this
/// process when it does not); new code may prefer `PathMonitor`, whose `.unknown`
/// state says plainly that no answer has come yet.
///
/// As on Apple platforms: the handler is called on the start queue soon after `start`
/// with the current path, then on every change (never twice with the same path);
/// `cancel()` is final; a second `start` does nothing; a monitor that is iterated
/// (`for await path in monitor`) starts itself if needed. Before the first answer
/// `currentPath` is `NWPath.unknown`, an unsatisfied path with no interfaces, which is
/// what Apple's returns then.
///
/// `@unchecked Sendable` as Apple's: every mutable state is behind a lock (here and in
/// `PathMonitor`).
public final class NWPathMonitor: @unchecked Sendable {
    private let monitor: PathMonitor
    private let state = Mutex(State())

    private struct State {
        var handler: (@Sendable (NWPath) -> Void)?
        var streams: [UInt64: AsyncStream<NWPath>.Continuation] = [:]
        var nextStream: UInt64 = 0
        var isCancelled = false
    }

    /// Monitors the host's default path, over any interface.
    public convenience init() {
        self.init(PathMonitor())
    }

    /// Monitors paths over interfaces of `requiredInterfaceType` only: "is there a path
    /// over Wi-Fi", not "is the host online".
    public convenience init(requiredInterfaceType: NWInterface.InterfaceType) {
        self.init(PathMonitor(requiredInterfaceType: requiredInterfaceType.linuxType))
    }

    /// Monitors paths as if interfaces of these types did not exist.
    public convenience init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) {
        self.init(PathMonitor(prohibitedInterfaceTypes: prohibitedInterfaceTypes.map(\.linuxType)))
    }

    /// Wraps a configured `PathMonitor` (to choose its mode or socket); it must not be
    /// started yet, and is owned by this monitor from now on.
    public init(_ monitor: PathMonitor) {
        self.monitor = monitor
    }

    /// Called on the start queue with each new path. Declared as Apple declares it, so
    /// a closure that is not `Sendable` is accepted in Swift 5 mode without a warning.
    @preconcurrency public final var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// Starts monitoring; the handler is called on `queue`. A second call, or a call
    /// after `cancel`, does nothing.
    public final func start(queue: DispatchQueue) {
        // A started monitor keeps itself alive until cancelled, as Apple's does: the
        // handler below holds it (and `cancel` lets go).
        if monitor.queue == nil { monitor.pathUpdateHandler = { [self] path in deliver(NWPath(path)) } }
        monitor.start(queue: queue)
    }

    /// Stops for good; iterations end.
    public final func cancel() {
        let streams = state.withLock { state -> [AsyncStream<NWPath>.Continuation] in
            state.isCancelled = true
            state.handler = nil
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        monitor.cancel()
        for stream in streams { stream.finish() }
    }

    /// The latest path; `NWPath.unknown` before the first answer.
    public final var currentPath: NWPath { monitor.currentPath.map(NWPath.init) ?? .unknown }

    /// The queue given to `start`, or nil before.
    public final var queue: DispatchQueue? { monitor.queue }

    /// The monitor underneath, for its `currentState`, `source` and `lastError`.
    public var pathMonitor: PathMonitor { monitor }

    private func deliver(_ path: NWPath) {
        let (handler, streams) = state.withLock { state in
            (state.isCancelled ? nil : state.handler, Array(state.streams.values))
        }
        handler?(path)
        for stream in streams { stream.yield(path) }
    }
}

extension NWPathMonitor: AsyncSequence {
    public typealias Element = NWPath
    public typealias Failure = Never

    /// Iterates paths: the current one first when it is known, then each change, until
    /// the monitor is cancelled. A slow reader gets the newest path, not a backlog.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = NWPath
        public typealias Failure = Never

        var base: AsyncStream<NWPath>.Iterator

        public mutating func next() async -> NWPath? {
            await base.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> NWPath? {
            await base.next(isolation: actor)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncStream<NWPath>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = state.withLock { state -> UInt64? in
            guard !state.isCancelled else { return nil }
            let key = state.nextStream
            state.nextStream += 1
            state.streams[key] = continuation
            return key
        }
        guard let key else {
            continuation.finish()
            return AsyncIterator(base: stream.makeAsyncIterator())
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: key) }
        }
        if let path = monitor.currentPath { continuation.yield(NWPath(path)) }
        // Iterating a monitor that was never started starts it, on a queue of its own.
        start(queue: DispatchQueue(label: "pathd.NWPathMonitor.sequence"))
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}
