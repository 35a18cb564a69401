// SPDX-License-Identifier: Apache-2.0
/// When a client that lost pathd tries again: the one reconnect policy of
/// `DaemonSubscription` (so of `PathMonitor` and `NWPathMonitor`) and of `pathctl`.
///
/// Every failure waits: a refused connection, a refused or unreadable hello, a line
/// that cannot be read, a daemon that closes at once. The waits follow `backoff`,
/// attempt after attempt, and start over only after a connection that stayed up for
/// `backoff.maximum` (measured on the caller's clock): a daemon that accepts and then
/// fails at once is retried ever more slowly, up to the cap, never in a loop.
public struct ReconnectSchedule: Sendable {
    public let backoff: Backoff
    /// Failures since the last connection that stayed up.
    public private(set) var attempt = 0
    /// When the connection now up was made; nil while none is.
    private var connectedAt: ContinuousClock.Instant?

    public init(backoff: Backoff = .standard) {
        self.backoff = backoff
    }

    /// A connection was made and subscribed at `now`.
    public mutating func connected(at now: ContinuousClock.Instant) {
        connectedAt = now
    }

    /// An attempt failed, or the connection made last ended, at `now`: the wait before
    /// the next attempt. `random` is in 0..<1 (`Backoff.delay(attempt:random:)`).
    public mutating func failed(at now: ContinuousClock.Instant, random: Double) -> Duration {
        if let connectedAt, now - connectedAt >= backoff.maximum { attempt = 0 }
        connectedAt = nil
        attempt += 1
        return backoff.delay(attempt: attempt, random: random)
    }
}
