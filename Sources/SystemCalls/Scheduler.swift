import Dispatch

/// Runs work later: the one clock of the daemon's retries and the client's reconnect
/// back-off, injected so that tests advance time instead of sleeping (as NIO's
/// `EmbeddedEventLoop.advanceTime(by:)`).
public protocol Scheduler: Sendable {
    /// Runs `work` on `queue` once `delay` has passed.
    func schedule(after delay: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)
    /// The present on the clock `schedule` counts delays by (how long a connection
    /// lasted is measured on it too).
    func now() -> ContinuousClock.Instant
}

/// Real time, through `DispatchQueue.asyncAfter`.
public struct DispatchScheduler: Scheduler {
    public init() {}

    public func schedule(after delay: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = max(delay, .zero).components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: work)
    }

    public func now() -> ContinuousClock.Instant { ContinuousClock.now }
}
