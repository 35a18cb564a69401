// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PathModel
import PathProtocol
import Synchronization
import SystemCalls

/// A subscription to pathd that outlives the daemon: it finds the daemon through the
/// search order (`PathConnection.connect(to:)`), subscribes with its criteria (or to the
/// route to one destination), reports every path (or route) line, and when the daemon
/// goes away reports that and reconnects with a capped, jittered back-off until cancelled
/// (`ReconnectSchedule`: every failure waits).
/// Events are delivered on the queue given to `start`, in order; after `cancel()` no
/// handler call begins, even for lines read before it (the check is made on that queue,
/// after the hop).
///
/// For programs that want only pathd's socket (this module links neither libnl nor
/// libsystemd). `PathMonitor` and `NWPathMonitor` in the PathClient module build on it.
///
/// Threading: no thread waits for the daemon. The socket is non-blocking and read by a
/// dispatch source on a private serial queue (`io`), which runs only when bytes came or
/// a deadline passed, so a thousand idle subscriptions hold no thread between them.
/// `lifecycle` is behind a lock; everything the handler sees happens on the start queue;
/// the connection and its schedule are bound to `io` (`QueueBound`).
public final class DaemonSubscription: Sendable {
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

    /// What either kind of subscription delivers: `Event`'s cases and a route's line.
    /// Route lines reach programs through `RouteSubscription.Event`, so that `Event`, which
    /// programs switch over exhaustively, keeps the cases it had.
    package enum Delivery: Hashable, Sendable {
        case event(Event)
        case route(RouteUpdate)
    }

    /// The criteria every path is evaluated under, as given to `init`; `.any` for a route.
    public let criteria: Criteria
    /// What is sent after each hello: `subscribe` with the criteria, or with a destination.
    private let request: Request
    private let socketPath: String?
    private let scheduler: any Scheduler
    private let random: @Sendable () -> Double
    /// How long a connection may wait for the daemon's hello (it is sent once the
    /// daemon knows its first path).
    private let helloTimeout: Duration
    /// Serial, on the width-limited global pool rather than an overcommitting queue of its
    /// own: nothing here blocks, and a few hundred subscriptions starting at once must not
    /// each get a thread (libdispatch makes one per busy overcommit queue, up to ~255).
    private let io = DispatchQueue(label: "pathd.DaemonSubscription", target: .global())
    private let lifecycle = Mutex(Lifecycle())
    private let onIO: QueueBound<IOState>

    private struct IOState {
        /// When to try again.
        var reconnect: ReconnectSchedule
        /// The connection being made or read.
        var connection: Connection?
        /// Numbers the connections, so that a deadline or a read of one that was since
        /// closed finds it gone.
        var connectionCount: UInt64 = 0
    }

    private struct Lifecycle {
        enum Phase { case idle, running, cancelled }
        var phase = Phase.idle
        var queue: DispatchQueue?
        var handler: (@Sendable (Delivery) -> Void)?
    }

    /// One connection to the daemon, from the connect on; on `io` only. A class, so that
    /// reading into its buffers copies nothing.
    private final class Connection {
        let number: UInt64
        let socketPath: String
        let descriptor: Int32
        /// Closes the descriptor when cancelled (dispatch's rule: only then is it unused).
        let readable: any DispatchSourceRead
        /// The hello's deadline, until the hello came.
        var deadline: (any DispatchSourceTimer)?
        var reader: ServerLineReader
        /// Checks the lines until the hello; nil once subscribed.
        var greeting: HelloCheck?

        init(number: UInt64, socketPath: String, descriptor: Int32, readable: any DispatchSourceRead,
             deadline: any DispatchSourceTimer) {
            self.number = number
            self.socketPath = socketPath
            self.descriptor = descriptor
            self.readable = readable
            self.deadline = deadline
            reader = ServerLineReader(socketPath: socketPath)
            greeting = HelloCheck(socketPath: socketPath)
        }
    }

    /// `socketPath` nil searches as `PathConnection.connect(to:)` does, at each attempt.
    public convenience init(criteria: Criteria = .any, socketPath: String? = nil, backoff: Backoff = .standard,
                scheduler: any Scheduler = DispatchScheduler(), helloTimeout: Duration = .seconds(30),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.init(request: Request(.subscribe(.path(criteria))), criteria: criteria, socketPath: socketPath,
                  backoff: backoff, scheduler: scheduler, helloTimeout: helloTimeout, random: random)
    }

    /// `RouteSubscription`'s: `request` subscribes to a route, `criteria` is `.any`.
    package init(request: Request, criteria: Criteria, socketPath: String?, backoff: Backoff,
                 scheduler: any Scheduler, helloTimeout: Duration, random: @escaping @Sendable () -> Double) {
        self.request = request
        self.criteria = criteria
        self.socketPath = socketPath
        onIO = QueueBound(sending: IOState(reconnect: ReconnectSchedule(backoff: backoff)), on: io)
        self.scheduler = scheduler
        self.helloTimeout = helloTimeout
        self.random = random
    }

    /// Starts; events arrive on `queue`. A second call, or a call after `cancel`, does nothing.
    public func start(queue: DispatchQueue, handler: @escaping @Sendable (Event) -> Void) {
        startDelivering(queue: queue) { delivery in
            if case .event(let event) = delivery { handler(event) }
        }
    }

    /// `start` with route lines too (`RouteSubscription`).
    package func startDelivering(queue: DispatchQueue, handler: @escaping @Sendable (Delivery) -> Void) {
        let starting = lifecycle.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            state.queue = queue
            state.handler = handler
            return true
        }
        if starting { io.async { [self] in connect() } }
    }

    /// Stops for good: once this returns, no handler call begins.
    public func cancel() {
        lifecycle.withLock { state in
            state.phase = .cancelled
            state.handler = nil
        }
        // Closes the connection in any phase: connecting, waiting for the hello, reading.
        io.async { [self] in close() }
    }

    private var isRunning: Bool { lifecycle.withLock { $0.phase == .running } }

    /// Connects, without waiting: the hello and what follows arrive through `readable`.
    private func connect() {
        guard isRunning, onIO.value.connection == nil else { return }
        let descriptor: Int32
        let socketPath: String
        do throws(PathClientError) {
            let candidates = PathConnection.searchOrder(explicit: self.socketPath)
            (descriptor, socketPath) = try PathConnection.openFirst(of: candidates, nonBlocking: true)
        } catch {
            failed(error)
            return
        }
        onIO.value.connectionCount &+= 1
        let number = onIO.value.connectionCount
        let readable = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: io)
        readable.setEventHandler { [self] in read(number) }
        readable.setCancelHandler { _ = Glibc.close(descriptor) }
        let deadline = DispatchSource.makeTimerSource(queue: io)
        deadline.setEventHandler { [self] in
            guard let connection = onIO.value.connection, connection.number == number else { return }
            failed(connection.reader.timedOut)
        }
        deadline.schedule(deadline: .now() + helloTimeout.dispatchInterval)
        onIO.value.connection = Connection(number: number, socketPath: socketPath, descriptor: descriptor,
                                           readable: readable, deadline: deadline)
        readable.resume()
        deadline.resume()
    }

    /// The socket is readable: every line it holds now, in order; then back to waiting.
    private func read(_ number: UInt64) {
        do throws(PathClientError) {
            // A bounded number of receives a turn, so a flood cannot hold the queue;
            // the source fires again while bytes remain.
            for _ in 0..<16 {
                guard let current = onIO.value.connection, current.number == number else { return }
                let more = try current.reader.receive(from: current.descriptor)
                while let line = current.reader.nextLine() {
                    try handle(ServerLineReader.decode(line), on: current)
                    // A handled line may have ended the connection (an error line).
                    guard onIO.value.connection === current else { return }
                }
                if !more { return }
            }
        } catch {
            failed(error)
        }
    }

    /// One message of the current connection.
    private func handle(_ message: ServerMessage, on current: Connection) throws(PathClientError) {
        if current.greeting != nil {
            guard let hello = try current.greeting?.check(message) else { return }
            current.greeting = nil
            current.deadline?.cancel()
            current.deadline = nil
            // A few bytes on a socket that has sent nothing yet: its buffer takes them.
            do {
                try FileDescriptor(rawValue: current.descriptor).sendAll(request.encoded())
            } catch {
                throw PathClientError("cannot send to pathd: \(error)", kind: .closed)
            }
            onIO.value.reconnect.connected(at: scheduler.now())
            deliver(.event(.connected(socketPath: current.socketPath, daemonVersion: hello.daemonVersion,
                                      generation: hello.generation)))
            return
        }
        switch message.forSubscriber {
        case .path(let update, _):
            deliver(.event(.path(update)))
        case .route(let update, _):
            deliver(.route(update))
        case .resync(let reason, let generation, _):
            deliver(.event(.resync(reason: reason, generation: generation)))
        case .error(let code, let message, _):
            throw PathClientError.refused(code, message)
        case nil:
            break
        }
    }

    /// Closes the current connection, if any: its descriptor once its source is done.
    private func close() {
        guard let current = onIO.value.connection else { return }
        onIO.value.connection = nil
        current.deadline?.cancel()
        current.readable.cancel()
    }

    /// The connection could not be made or ended: reported, and the next attempt
    /// scheduled after the back-off.
    private func failed(_ error: PathClientError) {
        close()
        guard isRunning else { return }
        deliver(.event(.disconnected(error)))
        let delay = onIO.value.reconnect.failed(at: scheduler.now(), random: random())
        scheduler.schedule(after: delay, on: io) { [self] in connect() }
    }

    /// Hands an event to the start queue; the lifecycle is checked there, after the hop.
    private func deliver(_ event: Delivery) {
        guard let queue = lifecycle.withLock({ $0.queue }) else { return }
        queue.async { [self] in
            guard let handler = lifecycle.withLock({ $0.phase == .running ? $0.handler : nil }) else { return }
            handler(event)
        }
    }
}
