// SPDX-License-Identifier: Apache-2.0
import CLinux
import Dispatch
import PathModel
import SystemCalls

/// Watches rtnetlink for one generation: dumps links and addresses, then delivers
/// changes, each batch followed by fresh route lookups. Cancelled and replaced,
/// never restarted.
///
/// Threading: the monitor works on a serial queue of its own, never the caller's state
/// queue, so a large dump or a slow lookup never holds up the daemon's clients. Every
/// field below is used on `queue` only. The event socket is watched by a thread of its
/// own (`ReadinessThread`), which reads and looks up inside `queue.sync` and then calls
/// `deliver` itself, outside `queue`, so that the receiver can publish on the same
/// thread: one wake-up from the kernel's event to the line (docs/ARCHITECTURE.md,
/// "Data flow"). The first batch (the dump's) is delivered on `queue`; `lost` is
/// called there.
///
/// `@unchecked Sendable`: the reader thread's handlers and `queue.async` blocks capture
/// the monitor, and they touch its state only on `queue`.
public final class NetlinkMonitor: PathEventSource, @unchecked Sendable {
    /// Messages handled per wakeup of the read source before yielding `queue` to other
    /// work (clients, timers): about 6 ms at the measured 670k raw messages/s. The rest
    /// is read on the next turn; the batch is delivered once the socket is drained.
    static let messagesPerWakeup = 4096
    /// Decoded link/address events held back while a flood keeps the socket busy;
    /// beyond this the batch is delivered early, so memory stays bounded. Route and
    /// rule messages are never held (they only mark "look up again").
    static let maxPendingEvents = 4096

    enum State {
        case idle
        /// Sockets open; the dump runs (or is queued) on `queue`.
        case starting
        case running(ReadinessThread)
        /// Cancelled, failed or failed to start: nothing more is delivered.
        case finished
    }

    let generation: Generation
    let queue: DispatchQueue
    let configuration: NetlinkConfiguration
    let deliver: @Sendable (EventBatch) -> Void
    let lost: @Sendable (Generation, SourceLoss) -> Void
    let log: @Sendable (LogLevel, String) -> Void
    let classifier: SysfsClassifier
    /// Reused for every receive on both sockets (they are only read on `queue`).
    let buffer = ReceiveBuffer()

    var state = State.idle
    /// Subscribed, non-blocking: multicast events.
    var eventSocket: NetlinkSocket?
    /// Blocking: dumps and route lookups.
    var requestSocket: NetlinkSocket?
    /// Link and address events decoded since the last delivered batch, in kernel order.
    var pending: [NetworkEvent] = []
    /// Which lookups the changes read since the last batch make stale, and which links
    /// carry lookups (`LookupStaleness`).
    var staleness: LookupStaleness

    /// Whether the kernel took a route filter that drops anything (`attachRouteFilter`).
    private(set) var isRouteFilterAttached = false
    /// Whether the filter's fallback (pass every route message) was logged.
    private var hasLoggedFilterFallback = false
    /// Whether the filter's covering networks instead of addresses was logged.
    private var hasLoggedAggregation = false
    /// Whether the filter's covering links instead of gateways was logged.
    private var hasLoggedCoarseNeighbours = false
    /// The destinations of watched routes (`passRoutes(covering:)`), which the filter passes.
    var watchedDestinations: Set<IPAddress> = []
    /// The gateways' neighbour entries and the links' carrier (NetlinkMonitor+Neighbours.swift).
    var neighbourWatch = NeighbourWatch()

    /// The event socket's receive buffer as obtained (getsockopt SO_RCVBUF after
    /// setting it), as the EPERM fallback's log line reports it. Linux reports twice
    /// the value set (socket(7)).
    public private(set) var receiveBufferBytes: Int = 0

    /// `queue` is the monitor's own (by default a new one); never the receiver's state queue.
    /// `deliver` is called on `queue` (the first batch) or on the reader thread, never
    /// on the receiver's own queue, which it may therefore enter with `sync`.
    public init(generation: Generation, queue: DispatchQueue = DispatchQueue(label: "pathd.netlink"),
                configuration: NetlinkConfiguration,
                deliver: @escaping @Sendable (EventBatch) -> Void,
                lost: @escaping @Sendable (Generation, SourceLoss) -> Void,
                log: @escaping @Sendable (LogLevel, String) -> Void) {
        self.generation = generation
        self.queue = queue
        self.configuration = configuration
        self.deliver = deliver
        self.lost = lost
        self.log = log
        self.staleness = LookupStaleness(generation: generation)
        self.classifier = SysfsClassifier(sysfsRoot: configuration.sysfsRoot) { log(.notice, $0) }
    }

    /// Opens the sockets on the calling thread (so they belong to its network
    /// namespace), then, on `queue`, dumps links, addresses and rules (never routes: the
    /// lookups ask the kernel about them, so the start does not grow with the table),
    /// drains what arrived meanwhile, performs the lookups, and delivers one batch with
    /// `isFullState`; then watches the event socket. Returns at once. Anything that
    /// fails is reported through `lost`, and the instance is then finished.
    public func start() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        // `sync` runs the block on the calling thread: setns(2) is per thread.
        let opened = queue.syncReturning { () -> NetlinkError? in
            // Started twice, or cancelled before it started: nothing to do, nothing to report.
            guard case .idle = state else { return nil }
            do throws(NetlinkError) {
                try openSockets()
                state = .starting
                return nil
            } catch {
                state = .finished
                closeSockets()
                return error
            }
        }
        if let opened {
            queue.async { self.lost(self.generation, .failure("cannot start the network monitor: \(opened)")) }
            return
        }
        queue.async { self.dumpAndWatch() }
    }

    /// Stops delivering; the read source's cancel handler closes the sockets. Callable
    /// from any queue, idempotent. A batch already handed to `deliver` may still arrive:
    /// the receiver's generation gate drops it.
    public func cancel() {
        queue.async { self.finish() }
    }

    private func dumpAndWatch() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard case .starting = state else { return }  // cancelled before the dump began
        do {
            // Subscribe first, dump second, drain third. Link and address messages carry
            // whole objects, so replaying the events queued during the dump after it, in
            // kernel order, ends in the kernel's current state even where they overlap
            // the dump (an object's last message wins). That also covers a dump the
            // kernel flags NLM_F_DUMP_INTR (changed while dumping): the change is queued.
            // The dump goes into `pending` first, so the drain appends after it.
            pending = try dump(type: RTM_GETLINK, header: ifinfomsg(), "dump links (RTM_GETLINK)")
            pending += try dump(type: RTM_GETADDR, header: ifaddrmsg(), "dump addresses (RTM_GETADDR)")
            pending += try dump(type: RTM_GETRULE, header: fib_rule_hdr(), "dump rules (RTM_GETRULE)")
            switch drainEvents() {
            case .caughtUp, .budgetExhausted:
                break  // a flood still queued is read by the reader thread as ordinary batches
            case .failed(let loss):
                throw NetlinkError(operation: "drain events queued during the dump",
                                   code: .protocolViolation(loss.description))
            }
            let first = try takeBatch(isFullState: true)
            try startReader()
            deliver(first)
            if let follow = followGateways() { deliver(follow) }
        } catch {
            state = .finished
            closeSockets()
            lost(generation, .failure("cannot read the kernel's state: \(error)"))
        }
    }

    // MARK: - Lifecycle

    private func openSockets() throws(NetlinkError) {
        let events = try NetlinkSocket(role: "event socket")
        eventSocket = events
        try setReceiveBuffer(of: events)
        try events.setLibnlMessageBufferSize(ReceiveBuffer.defaultSize)
        // Before joining the groups, so that no message is queued unfiltered.
        attachRouteFilter(to: events)
        // RTNLGRP_NEIGH: the filter passes the gateways' entries only (`NeighbourFilter`).
        for group in [RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV4_ROUTE,
                      RTNLGRP_IPV6_ROUTE, RTNLGRP_IPV4_RULE, RTNLGRP_IPV6_RULE, RTNLGRP_NEIGH, RTNLGRP_ND_USEROPT] {
            try events.addMembership(group)
        }
        try events.setNonBlocking()

        let requests = try NetlinkSocket(role: "request socket")
        requestSocket = requests
        try requests.setLibnlMessageBufferSize(ReceiveBuffer.defaultSize)
        try requests.setReceiveTimeout(seconds: 5)
        // Room for a batch of lookups' replies (`RouteLookupRequest.batchSize`); capped at
        // net.core.rmem_max, which the batch size is chosen to fit.
        _ = try requests.setOption(SO_RCVBUF, RouteLookupRequest.receiveBufferBytes)
            .get("setsockopt(SO_RCVBUF, \(RouteLookupRequest.receiveBufferBytes))")
    }

    /// SO_RCVBUFFORCE (needs CAP_NET_ADMIN) bypasses net.core.rmem_max; without it,
    /// SO_RCVBUF with the same value, which the kernel caps at rmem_max (socket(7)).
    private func setReceiveBuffer(of socket: NetlinkSocket) throws(NetlinkError) {
        let bytes = Int32(clamping: configuration.receiveBufferBytes)
        let forced = socket.setOption(SO_RCVBUFFORCE, bytes)
        let refused: Bool
        switch forced {
        case .failed(.errno(EPERM)):
            refused = true
            _ = try socket.setOption(SO_RCVBUF, bytes).get("setsockopt(SO_RCVBUF, \(bytes))")
        default:
            refused = false
            _ = try forced.get("setsockopt(SO_RCVBUFFORCE, \(bytes))")
        }
        receiveBufferBytes = try socket.option(SO_RCVBUF, "SO_RCVBUF")
        // Without CAP_NET_ADMIN (pathd.service grants none) a capped buffer is the normal
        // case, not a fault: one line, at info, and the whole story in pathd(8), "Receive
        // buffer". getsockopt reports twice what the kernel granted (socket(7)).
        let granted = receiveBufferBytes / 2
        if refused && granted < Int(bytes) {
            log(.info, "netlink: receive buffer \(granted) bytes (net.core.rmem_max; \(bytes) asked, "
                + "see \"Receive buffer\" in pathd(8))")
        }
    }

    /// Drops, in the kernel, the route messages that cannot change an answer
    /// (`RouteFilter`): those covering neither a lookup destination nor a watched one.
    /// Called when the socket opens and again whenever the watched destinations change:
    /// SO_ATTACH_FILTER on a socket that has a filter swaps the new program in at once.
    /// Past `RouteFilter.maximumWatchedDestinations` the program covers their networks,
    /// passing more than it must (said once per monitor); if the kernel refuses the
    /// program, every route message is passed and read, as before there was a filter:
    /// correct, only busier (said once too).
    func attachRouteFilter(to socket: NetlinkSocket) {
        let prefixes = RouteFilter.coveredPrefixes(watchedDestinations)
        if !hasLoggedAggregation, let network = prefixes.first(where: { !$0.isAddress }) {
            hasLoggedAggregation = true
            log(.notice, "netlink: \(watchedDestinations.count) destinations are watched, more than the "
                + "\(RouteFilter.maximumWatchedDestinations) the route filter covers one by one; it covers their "
                + "networks (/\(network.length) and the like) and lets more route messages through")
        }
        let gateways = neighbourWatch.keys
        if !hasLoggedCoarseNeighbours, NeighbourFilter.coverage(of: gateways) != .gateways(gateways.sorted()) {
            hasLoggedCoarseNeighbours = true
            log(.notice, "netlink: \(gateways.count) gateways, more than the \(NeighbourFilter.maximumGateways) the "
                + "filter covers one by one; it lets every neighbour entry of their links through")
        }
        let program = RouteFilter.program(lookupDestinations: configuration.lookupDestinations, covering: prefixes,
                                          neighbours: NeighbourFilter.coverage(of: gateways))
        neighbourWatch.filtered = gateways
        do {
            _ = try socket.attachFilter(program).get("setsockopt(SO_ATTACH_FILTER, \(program.count) instructions)")
            isRouteFilterAttached = true
        } catch {
            isRouteFilterAttached = false
            logFilterFallbackOnce("\(error)")
            do {
                // The previous program covers less than is now watched: read everything.
                _ = try socket.attachFilter(RouteFilter.passEverything).get("setsockopt(SO_ATTACH_FILTER)")
            } catch {
                log(.error, "netlink: cannot replace the route filter: \(error); routes of newly watched "
                    + "destinations may not be seen")
            }
        }
    }

    private func logFilterFallbackOnce(_ why: String) {
        guard !hasLoggedFilterFallback else { return }
        hasLoggedFilterFallback = true
        log(.warning, "netlink: route filter not attached, every route message will be read: \(why)")
    }

    /// Starts the thread that waits for the event socket. Its handlers retain the monitor
    /// until it ends, so the sockets outlive every handler; they are closed once, after
    /// the last one ran, on `queue`.
    private func startReader() throws(NetlinkError) {
        guard let events = eventSocket else {
            throw NetlinkError(operation: "watch events", code: .protocolViolation("event socket is closed"))
        }
        do {
            let reader = try ReadinessThread(name: "pathd-netlink", descriptor: events.fileDescriptor,
                                             onReadable: { self.readAndDeliver() },
                                             onStop: { self.queue.async { self.closeSockets() } })
            state = .running(reader)
        } catch {
            throw NetlinkError(operation: "start the event reader thread", code: .errno(error.rawValue))
        }
    }

    private func finish() {
        switch state {
        case .idle, .starting:
            state = .finished
            closeSockets()
        case .running(let reader):
            state = .finished
            reader.stop()
        case .finished:
            break
        }
    }

    private func closeSockets() {
        eventSocket?.close()
        requestSocket?.close()
        eventSocket = nil
        requestSocket = nil
    }

    /// Events were lost or the socket broke: stop, and let the daemon replace us.
    func fail(_ loss: SourceLoss) {
        finish()
        lost(generation, loss)
    }
}
