/// How long a client waits before reconnecting: doubling from `initial` up to
/// `maximum`, each wait spread by up to ±`jitter` of itself so that the clients of a
/// restarted daemon do not all come back at the same instant.
public struct Backoff: Hashable, Sendable {
    public var initial: Duration
    public var maximum: Duration
    /// A fraction from 0 to 1.
    public var jitter: Double

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5), jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    public static let standard = Backoff()

    /// The wait before attempt `attempt` (1 for the first retry). `random` is a value
    /// in 0..<1 (injected so tests can pin it).
    public func delay(attempt: Int, random: Double) -> Duration {
        var base = initial
        for _ in 1..<max(attempt, 1) {
            base = base * 2
            if base >= maximum { break }
        }
        base = min(base, maximum)
        let factor = 1 + jitter * (2 * random - 1)
        return min(base * factor, maximum * (1 + jitter))
    }
}
