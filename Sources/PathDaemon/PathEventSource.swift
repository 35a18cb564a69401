import PathModel

/// A producer of network events: the netlink monitor in the daemon, a replaying fake
/// in tests. One instance is one generation; it is cancelled and replaced, never
/// restarted.
///
/// Threading: `start()` and `cancel()` are called on the daemon's state queue, and an
/// instance calls its `SourceCallbacks` on that queue only.
public protocol PathEventSource: AnyObject {
    /// Subscribes, dumps the current state, and delivers it as the first batch (with
    /// `isFullState` set); later batches carry changes.
    func start() throws
    /// Stops delivering. Batches already queued are dropped by the generation gate.
    func cancel()
}

/// What an event source reports to the daemon. Called on the state queue.
public struct SourceCallbacks: Sendable {
    /// A drained batch of events.
    public let deliver: @Sendable (EventBatch) -> Void
    /// Events were lost (a receive-buffer overrun, ENOBUFS): the instance of this
    /// generation can no longer be trusted; the daemon replaces it.
    public let lost: @Sendable (Generation, String) -> Void

    public init(deliver: @escaping @Sendable (EventBatch) -> Void,
                lost: @escaping @Sendable (Generation, String) -> Void) {
        self.deliver = deliver
        self.lost = lost
    }
}

/// Makes the event source of a generation.
public typealias PathEventSourceFactory = (Generation, SourceCallbacks) -> any PathEventSource
