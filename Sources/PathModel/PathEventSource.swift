/// A producer of network events: the netlink monitor in the daemon and in the client's
/// in-process mode, a replaying fake in tests. One instance is one generation; it is
/// cancelled and replaced, never restarted.
///
/// Threading: a source works on a queue of its own, so that the kernel never blocks the
/// state queue. `start()` and `cancel()` may be called from any queue and return at
/// once; the callbacks are called on the source's queue, and the receiver hops onto its
/// state queue and checks the generation there, after the hop.
public protocol PathEventSource: AnyObject, Sendable {
    /// Subscribes and dumps the current state, asynchronously. The first batch
    /// delivered has `isFullState` set; later batches carry changes. A source that
    /// cannot start calls `lost` instead, before any batch.
    func start()
    /// Stops delivering. Callbacks already on their way are dropped by the receiver's
    /// generation gate.
    func cancel()
}

/// What an event source reports. Called on the source's own queue.
public struct SourceCallbacks: Sendable {
    /// A drained batch of events.
    public let deliver: @Sendable (EventBatch) -> Void
    /// The instance of this generation can no longer be trusted or never started (a
    /// receive-buffer overrun, a failed dump): the receiver replaces it. The text says
    /// why, for the log and for subscribers' resync lines.
    public let lost: @Sendable (Generation, String) -> Void

    public init(deliver: @escaping @Sendable (EventBatch) -> Void,
                lost: @escaping @Sendable (Generation, String) -> Void) {
        self.deliver = deliver
        self.lost = lost
    }
}

/// Makes the event source of a generation.
public typealias PathEventSourceFactory = @Sendable (Generation, SourceCallbacks) -> any PathEventSource
