import Dispatch
import PathModel
import PathProtocol
import PathSocketClient
import Synchronization

/// NWPathMonitor for Linux: subscribes to pathd and calls `pathUpdateHandler` on your
/// queue with every new path.
///
/// ```swift
/// let monitor = PathMonitor(requiredInterfaceType: .wifi)
/// monitor.pathUpdateHandler = { path in print(path.status) }
/// monitor.start(queue: .main)
/// ```
///
/// Until the first path arrives, and whenever pathd cannot be reached, the path is
/// unknown: `currentPath` is nil and the handler is not called. Unknown is not
/// offline — never block a request on it. A monitor reconnects by itself (backing off
/// up to 5 s) and can be cancelled, never restarted; make a new one instead. Why the
/// latest attempt failed is kept in `lastError`.
///
/// Threading: one reader thread per monitor talks to the socket; everything the
/// handler sees happens on the queue given to `start`. Each connection is a
/// generation: a path read on a connection that was since replaced or cancelled is
/// dropped on that queue, after the hop, so a cancelled monitor never calls back.
public final class PathMonitor: Sendable {
    public let requiredInterfaceType: InterfaceType?
    public let prohibitedInterfaceTypes: [InterfaceType]
    private let socketPath: String?
    private let state = Mutex(State())
    /// Wakes the reader's back-off wait when the monitor is cancelled.
    private let wake = DispatchSemaphore(value: 0)

    private struct State {
        var handler: (@Sendable (Path) -> Void)?
        var queue: DispatchQueue?
        var lifecycle = Lifecycle.idle
        /// Interrupts the connection currently read, so `cancel` can wake the reader.
        var interrupter: PathConnectionInterrupter?
        /// Bumped for every connection; deliveries carry the one they were read on.
        var generation: UInt64 = 0
        var currentPath: Path?
        /// Set when a connection fails, cleared when one subscribes; both on the start queue.
        var lastError: PathClientError?
    }

    private enum Lifecycle { case idle, running, cancelled }

    /// `socketPath` nil means `PathConnection.defaultSocketPath()`, looked up at each connection.
    public init(requiredInterfaceType: InterfaceType? = nil, prohibitedInterfaceTypes: [InterfaceType] = [],
                socketPath: String? = nil) {
        self.requiredInterfaceType = requiredInterfaceType
        self.prohibitedInterfaceTypes = prohibitedInterfaceTypes
        self.socketPath = socketPath
    }

    /// Called on the start queue with each new path. Set it before `start`.
    public var pathUpdateHandler: (@Sendable (Path) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// The latest path, or nil while unknown.
    public var currentPath: Path? { state.withLock { $0.currentPath } }

    /// Why the latest attempt to talk to pathd failed (no socket path, cannot connect, no
    /// `hello`, an unreadable line, the daemon went away), or nil since a connection
    /// subscribed. The monitor retries either way: this says why the path is unknown,
    /// for logs, and is no verdict on the network. Changed on the start queue, in order
    /// with the handler's calls; read it there, as `currentPath`.
    public var lastError: PathClientError? { state.withLock { $0.lastError } }

    /// Starts monitoring; paths are delivered on `queue`. A second call, or a call after
    /// `cancel`, does nothing.
    public func start(queue: DispatchQueue) {
        let starting = state.withLock { state -> Bool in
            guard state.lifecycle == .idle else { return false }
            state.lifecycle = .running
            state.queue = queue
            return true
        }
        guard starting else { return }
        // The reader blocks in recv for the monitor's life: it gets a queue (and so a
        // worker thread) of its own.
        DispatchQueue(label: "pathd.PathMonitor.reader").async { [self] in run() }
    }

    /// Stops for good: no handler call happens after this returns on the start queue.
    public func cancel() {
        state.withLock { state in
            state.lifecycle = .cancelled
            state.generation &+= 1
            state.currentPath = nil
            state.interrupter?.interrupt()
        }
        wake.signal()
    }

    private var criteria: Criteria {
        Criteria(requiredInterfaceType: requiredInterfaceType, prohibitedInterfaceTypes: Set(prohibitedInterfaceTypes))
    }

    /// The reader thread: connect, subscribe, deliver, and on any failure back off and
    /// try again, until cancelled.
    private func run() {
        var delayMilliseconds = 100
        while true {
            guard let generation = beginConnection() else { return }
            let failure: PathClientError
            if let path = socketPath ?? PathConnection.defaultSocketPath() {
                do throws(PathClientError) {
                    let connection = try PathConnection(socketPath: path)
                    defer { connection.close() }
                    guard adopt(connection, generation: generation) else { return }
                    try connection.send(Request(op: .subscribe, criteria: criteria))
                    onQueue(generation: generation) { $0.lastError = nil }
                    delayMilliseconds = 100
                    while true {
                        if case .path(let update, _) = try connection.next() {
                            deliver(update.path, generation: generation)
                        }
                    }
                } catch {
                    // The daemon went away or refused: unknown until a new connection says otherwise.
                    failure = error
                }
            } else {
                failure = PathClientError("no socket path: XDG_RUNTIME_DIR is not set; give PathMonitor a socketPath")
            }
            endConnection(generation: generation, failure: failure)
            // Back off before reconnecting; `cancel` cuts the wait short.
            _ = wake.wait(timeout: .now() + .milliseconds(delayMilliseconds))
            delayMilliseconds = min(delayMilliseconds * 2, 5000)
        }
    }

    /// A new generation for the next connection, or nil once cancelled.
    private func beginConnection() -> UInt64? {
        state.withLock { state in
            guard state.lifecycle == .running else { return nil }
            state.generation &+= 1
            return state.generation
        }
    }

    /// Records the connection so `cancel` can interrupt it; false (and closed) if the
    /// monitor was cancelled meanwhile.
    private func adopt(_ connection: PathConnection, generation: UInt64) -> Bool {
        let adopted = state.withLock { state -> Bool in
            guard state.lifecycle == .running, state.generation == generation else { return false }
            state.interrupter = connection.interrupter
            return true
        }
        if !adopted { connection.close() }
        return adopted
    }

    private func endConnection(generation: UInt64, failure: PathClientError) {
        state.withLock { $0.interrupter = nil }
        // Unknown again, and why.
        onQueue(generation: generation) { state in
            state.currentPath = nil
            state.lastError = failure
        }
    }

    /// Changes the state on the queue that owns what the handler sees, if `generation`
    /// is still the current connection once there.
    private func onQueue(generation: UInt64, _ change: @escaping @Sendable (inout State) -> Void) {
        guard let queue = state.withLock({ $0.queue }) else { return }
        queue.async { [self] in
            state.withLock { state in
                if state.generation == generation { change(&state) }
            }
        }
    }

    private func deliver(_ path: Path, generation: UInt64) {
        guard let queue = state.withLock({ $0.queue }) else { return }
        queue.async { [self] in
            // The generation gate, after the hop: a path from a replaced or cancelled
            // connection must not reach the handler.
            let handler = state.withLock { state -> (@Sendable (Path) -> Void)? in
                guard state.lifecycle == .running, state.generation == generation, state.currentPath != path else {
                    return nil
                }
                state.currentPath = path
                return state.handler
            }
            handler?(path)
        }
    }
}
