// SPDX-License-Identifier: Apache-2.0
/// How long a client waits before reconnecting: doubling from `initial` up to
/// `maximum`, each wait shortened by a random part of up to `jitter` of itself, so that
/// the clients of a restarted daemon do not all come back at the same instant.
///
/// The bounds are strict: attempt `n` waits between `(1 - jitter) · w` and `w`, where
/// `w = min(initial · 2^(n-1), maximum)`; no wait is ever longer than `maximum`.
public struct Backoff: Hashable, Sendable {
    /// The wait before the first retry, before jitter.
    public var initial: Duration
    /// The cap: no wait is longer.
    public var maximum: Duration
    /// The largest part of a wait that is taken off at random, from 0 (none) to 1.
    public var jitter: Double

    /// A back-off doubling from `initial` to `maximum`; `jitter` is clamped to 0...1 and
    /// `maximum` raised to `initial` if it is smaller.
    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5), jitter: Double = 0.2) {
        self.initial = max(initial, .zero)
        self.maximum = max(maximum, self.initial)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// 100 ms doubling to 5 s, up to 20 % shorter at random: docs/PROTOCOL.md's schedule
    /// ("Reconnecting"), the one of every client of the package: `DaemonSubscription`,
    /// `PathMonitor`, `NWPathMonitor` and pathctl (unless told otherwise).
    public static let standard = Backoff()

    /// The wait before attempt `attempt` (1 for the first retry). `random` is a value
    /// in 0..<1 (injected so that tests can pin it); 0 gives the longest wait.
    public func delay(attempt: Int, random: Double) -> Duration {
        var base = initial
        for _ in 1..<max(attempt, 1) {
            if base >= maximum { break }
            base = base * 2
        }
        let capped = min(base, maximum)
        return capped * (1 - jitter * min(max(random, 0), 1))
    }
}
