// SPDX-License-Identifier: Apache-2.0
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
        queue.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: work)
    }

    public func now() -> ContinuousClock.Instant { ContinuousClock.now }
}

extension Duration {
    /// This duration for Dispatch's deadlines, in nanoseconds; a negative one is zero.
    public var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = max(self, .zero).components
        return .nanoseconds(Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000))
    }
}
