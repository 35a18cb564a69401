import Dispatch
import PathModel
import PathProtocol
import Synchronization
import SystemCalls

/// A subscription to pathd that outlives the daemon: it finds the daemon through the
/// search order (`PathConnection.connect(to:)`), subscribes with its criteria, reports
/// every path line, and when the daemon goes away reports that and reconnects with a
/// capped, jittered back-off until cancelled (`ReconnectSchedule`: every failure waits).
/// Events are delivered on the queue given to `start`, in order; after `cancel()` no
/// handler call begins, even for lines read before it (the check is made on that queue,
/// after the hop).
///
/// For programs that want only pathd's socket (this module links neither libnl nor
/// libsystemd). `PathMonitor` and `NWPathMonitor` in the PathClient module build on it.
///
/// Threading: one worker of a private queue blocks reading the connection for the
/// subscription's life (`io`); `lifecycle` is behind a lock; everything the handler
/// sees happens on the start queue. `@unchecked Sendable`: `reconnect` is touched on
/// `io` only, the rest is immutable or locked.
public final class DaemonSubscription: @unchecked Sendable {
    /// What happened to the subscription.
    public enum Event: Hashable, Sendable {
        /// A daemon answered and the subscription is in place; a `path` follows at once.
        case connected(socketPath: String, daemonVersion: String, generation: Generation)
        /// The path under the subscription's criteria (the first one, then each change).
        case path(PathUpdate)
        /// The daemon lost kernel events and re-read its state; a `path` follows.
        case resync(reason: String, generation: Generation)
        /// The connection could not be made or ended: the path is unknown until the next
        /// `connected`. The subscription retries by itself, after a back-off.
        case disconnected(PathClientError)
    }

    /// The criteria every path is evaluated under, as given to `init`.
    public let criteria: Criteria
    private let socketPath: String?
    private let scheduler: any Scheduler
    private let random: @Sendable () -> Double
    /// How long a connection may wait for the daemon's hello (it is sent once the
    /// daemon knows its first path).
    private let helloTimeout: Duration
    private let io = DispatchQueue(label: "pathd.DaemonSubscription")
    private let lifecycle = Mutex(Lifecycle())
    /// When to try again; on `io` only.
    private var reconnect: ReconnectSchedule

    private struct Lifecycle {
        enum Phase { case idle, running, cancelled }
        var phase = Phase.idle
        var queue: DispatchQueue?
        var handler: (@Sendable (Event) -> Void)?
        /// Interrupts the connection being read, so `cancel` can wake the reader.
        var interrupter: PathConnectionInterrupter?
    }

    /// `socketPath` nil searches as `PathConnection.connect(to:)` does, at each attempt.
    public init(criteria: Criteria = .any, socketPath: String? = nil, backoff: Backoff = .standard,
                scheduler: any Scheduler = DispatchScheduler(), helloTimeout: Duration = .seconds(30),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.criteria = criteria
        self.socketPath = socketPath
        reconnect = ReconnectSchedule(backoff: backoff)
        self.scheduler = scheduler
        self.helloTimeout = helloTimeout
        self.random = random
    }

    /// Starts; events arrive on `queue`. A second call, or a call after `cancel`, does nothing.
    public func start(queue: DispatchQueue, handler: @escaping @Sendable (Event) -> Void) {
        let starting = lifecycle.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            state.queue = queue
            state.handler = handler
            return true
        }
        if starting { io.async { [self] in run() } }
    }

    /// Stops for good: once this returns, no handler call begins.
    public func cancel() {
        lifecycle.withLock { state in
            state.phase = .cancelled
            state.handler = nil
            state.interrupter?.interrupt()
        }
    }

    private var isRunning: Bool { lifecycle.withLock { $0.phase == .running } }

    /// One connection, read until it fails; then the next attempt is scheduled.
    private func run() {
        dispatchPrecondition(condition: .onQueue(io))
        guard isRunning else { return }
        do throws(PathClientError) {
            let connection = try PathConnection.connect(to: socketPath, timeout: helloTimeout)
            defer { connection.close() }
            let adopted = lifecycle.withLock { state -> Bool in
                guard state.phase == .running else { return false }
                state.interrupter = connection.interrupter
                return true
            }
            guard adopted else { return }
            try connection.setTimeout(nil)
            try connection.send(Request(.subscribe(criteria)))
            reconnect.connected(at: scheduler.now())
            if let hello = connection.hello {
                deliver(.connected(socketPath: connection.socketPath, daemonVersion: hello.daemonVersion,
                                   generation: hello.generation))
            }
            while true {
                switch try connection.next().forSubscriber {
                case .path(let update, _):
                    deliver(.path(update))
                case .resync(let reason, let generation, _):
                    deliver(.resync(reason: reason, generation: generation))
                case .error(let code, let message, _):
                    throw PathClientError.refused(code, message)
                case nil:
                    continue
                }
            }
        } catch {
            lifecycle.withLock { $0.interrupter = nil }
            guard isRunning else { return }
            deliver(.disconnected(error))
            let delay = reconnect.failed(at: scheduler.now(), random: random())
            scheduler.schedule(after: delay, on: io) { [self] in run() }
        }
    }

    /// Hands an event to the start queue; the lifecycle is checked there, after the hop.
    private func deliver(_ event: Event) {
        guard let queue = lifecycle.withLock({ $0.queue }) else { return }
        queue.async { [self] in
            guard let handler = lifecycle.withLock({ $0.phase == .running ? $0.handler : nil }) else { return }
            handler(event)
        }
    }
}
