// SPDX-License-Identifier: Apache-2.0
/// A producer of network events: the netlink monitor in the daemon and in the client's
/// in-process mode, a replaying fake in tests. One instance is one generation; it is
/// cancelled and replaced, never restarted.
///
/// Threading: a source works on a queue of its own, so that the kernel never blocks the
/// state queue. `start()` and `cancel()` may be called from any queue and return at
/// once; the callbacks are called on the source's queue or thread, never the receiver's
/// state queue, and the receiver enters its state queue and checks the generation there.
public protocol PathEventSource: AnyObject, Sendable {
    /// Subscribes and dumps the current state, asynchronously. The first batch
    /// delivered has `isFullState` set; later batches carry changes. A source that
    /// cannot start calls `lost` instead, before any batch.
    func start()
    /// Stops delivering. Callbacks already on their way are dropped by the receiver's
    /// generation gate.
    func cancel()
    /// Asks which route the kernel would take to each destination now (RTM_GETROUTE,
    /// policy rules applied, no packet sent), and through each interface it is asked about
    /// on its own (`DestinationLookup`), for the `route` request and the watched routes;
    /// with an interface, only for traffic sent through it (RTA_OIF, as `ip route get …
    /// oif`). Returns at once; `reply` is called once, on the source's own queue, behind
    /// the work already queued there, with one answer per question in their order, once
    /// all are asked (the netlink monitor asks a few dozen per turn of its queue, so that
    /// a long round delays its other work by one turn only). A source that can no longer
    /// ask (cancelled, its socket failed) answers each with a failure. A question's
    /// `known` answers are those a source gave before: it may keep those no change could
    /// have reached since (`AskedLookup.askedAt`) instead of asking again.
    func lookUpRoutes(_ questions: [RouteQuestion],
                      reply: @escaping @Sendable ([Result<AskedLookup, RouteLookupError>]) -> Void)
    /// The destinations of the watched routes: a route message that covers one of them
    /// must reach the source (the netlink monitor's kernel-side filter passes it from
    /// now on). Returns at once; applied in order with the lookups, so a lookup asked
    /// after this call is answered after the filter changed.
    func passRoutes(covering destinations: Set<IPAddress>)
    /// Asks the kernel again about these gateways' neighbour entries, which do not name
    /// their link's network yet (`Snapshot.unconfirmedGateways`): a confirmation by
    /// traffic changes an entry without a message. The netlink monitor reads them
    /// (RTM_GETNEIGH) and, with `ResolveGateways=`, first asks the kernel to confirm
    /// them as a first packet would; what it read comes as a batch. Returns at once.
    func refreshNeighbours(_ gateways: [Neighbour.Key])
}

/// One route lookup: a destination and, for a link-scoped one, the interface its traffic
/// is sent through (RTA_OIF).
public struct RouteQuestion: Hashable, Sendable {
    public var destination: IPAddress
    public var interface: InterfaceIndex?
    /// The answers through each interface a source gave for `destination` before (a
    /// watched route's, which `RouteWatcher` keeps), for a question without `interface`.
    public var known: KnownAnswers?

    public init(destination: IPAddress, interface: InterfaceIndex? = nil, known: KnownAnswers? = nil) {
        self.destination = destination
        self.interface = interface
        self.known = known
    }
}

/// When a source asked an answer, by its own clock: its generation and the batches it
/// had delivered then. A source keeps an answer only while no batch since could have
/// changed it, and never another generation's.
public struct LookupStamp: Hashable, Sendable {
    public var generation: Generation
    public var batch: Int

    public init(generation: Generation, batch: Int) {
        self.generation = generation
        self.batch = batch
    }
}

/// A source's answer about one destination and when it asked it.
public struct AskedLookup: Hashable, Sendable {
    public var lookup: DestinationLookup
    public var askedAt: LookupStamp

    public init(_ lookup: DestinationLookup, askedAt: LookupStamp) {
        self.lookup = lookup
        self.askedAt = askedAt
    }

    /// What to give back with the next question about the destination (`RouteQuestion.known`).
    public var known: KnownAnswers { KnownAnswers(throughInterface: lookup.throughInterface, askedAt: askedAt) }
}

/// The answers through each interface a source gave for a destination, and when.
public struct KnownAnswers: Hashable, Sendable {
    public var throughInterface: [InterfaceIndex: RouteLookup]
    public var askedAt: LookupStamp

    public init(throughInterface: [InterfaceIndex: RouteLookup], askedAt: LookupStamp) {
        self.throughInterface = throughInterface
        self.askedAt = askedAt
    }
}

/// A route lookup that got no answer from the kernel (the request socket failed or is
/// closed): not a verdict about the destination.
public struct RouteLookupError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// What an event source reports. Called on the source's own queue.
public struct SourceCallbacks: Sendable {
    /// A drained batch of events. Called on the source's own queue or thread, never on
    /// the receiver's state queue, so the receiver may enter that queue with `sync` and
    /// publish on the source's thread; the source waits meanwhile.
    public let deliver: @Sendable (EventBatch) -> Void
    /// The instance of this generation can no longer be trusted or never started (a
    /// receive-buffer overrun, a failed dump): the receiver replaces it. The loss says
    /// why, for the log, for subscribers' resync lines and for the overrun counter.
    public let lost: @Sendable (Generation, SourceLoss) -> Void

    public init(deliver: @escaping @Sendable (EventBatch) -> Void,
                lost: @escaping @Sendable (Generation, SourceLoss) -> Void) {
        self.deliver = deliver
        self.lost = lost
    }
}

/// Why an event source can no longer be trusted: a receive-buffer overrun (events were
/// lost, the kernel said ENOBUFS) or any other failure. Typed, so that overruns are
/// counted as such (pathd's metrics) without reading the words.
public struct SourceLoss: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The kernel's receive buffer overran: events were lost.
        case overrun
        /// The socket, a dump or a lookup failed, or the source could not start.
        case failure
    }

    public let kind: Kind
    /// In words, for the log and for subscribers' `resync` lines.
    public let description: String

    /// ENOBUFS from recvmsg (libnl's -NLE_NOMEM): events were lost.
    public static let overrun = SourceLoss(kind: .overrun,
                                           description: "kernel receive buffer overrun (ENOBUFS): events lost")

    public static func failure(_ description: String) -> SourceLoss {
        SourceLoss(kind: .failure, description: description)
    }

    private init(kind: Kind, description: String) {
        self.kind = kind
        self.description = description
    }
}

/// Makes the event source of a generation.
public typealias PathEventSourceFactory = @Sendable (Generation, SourceCallbacks) -> any PathEventSource
