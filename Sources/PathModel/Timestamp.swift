/// A moment, read from two clocks at once: the wall clock (for people, and to compare
/// with other hosts) and a monotonic clock that never jumps (for durations).
public struct Timestamp: Hashable, Sendable {
    /// Since the Unix epoch (CLOCK_REALTIME): may jump when the clock is set.
    public var wall: Duration
    /// Since boot, suspend included (CLOCK_BOOTTIME): comparable only within one boot.
    public var monotonic: Duration

    public init(wall: Duration, monotonic: Duration) {
        self.wall = wall
        self.monotonic = monotonic
    }

    /// The wall clock's second, as the protocol writes times (RFC 3339).
    public var utc: UTCTime { UTCTime(secondsSinceEpoch: Int64(wall.components.seconds)) }
}

/// Where the daemon reads the time: the system's clocks, or a clock a test moves.
public protocol TimeSource: Sendable {
    func now() -> Timestamp
}

extension Duration {
    /// In seconds, with the fraction (attoseconds kept to double precision).
    public var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// From seconds with a fraction, to the microsecond.
    public static func seconds(fractional value: Double) -> Duration {
        .microseconds(Int64((value * 1_000_000).rounded()))
    }
}
