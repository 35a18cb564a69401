// SPDX-License-Identifier: Apache-2.0
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

    /// The wall-clock times a timestamp read from a file or a peer may carry: from
    /// 1970-01-01 to the end of 9999 (UTC), the years RFC 3339 writes with four digits.
    public static let wallRange: Range<Duration> = .zero ..< .seconds(253_402_300_800)
    /// The monotonic times it may carry: never negative (time since boot), and bounded
    /// like the wall clock, so that any difference of two is far from overflowing.
    public static let monotonicRange: Range<Duration> = .zero ..< .seconds(253_402_300_800)

    /// Whether both clocks are in their ranges: a timestamp from outside the process
    /// (a history file, a daemon's reply) that is not is refused where it is read.
    public var isPlausible: Bool { Self.wallRange.contains(wall) && Self.monotonicRange.contains(monotonic) }

    /// The wall clock's second, as the protocol writes times (RFC 3339).
    public var utc: UTCTime { UTCTime(secondsSinceEpoch: wall.wholeSeconds) }
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

    /// The largest magnitude `seconds(fractional:)` converts: about 292,000 years, the
    /// most microseconds an Int64 holds.
    public static let maximumFractionalSeconds: Double = 9_223_372_036_854.0

    /// From seconds with a fraction, to the microsecond; nil for NaN, an infinity, or a
    /// magnitude past `maximumFractionalSeconds` (which would not fit, and trap).
    public static func seconds(fractional value: Double) -> Duration? {
        guard value.isFinite, abs(value) <= maximumFractionalSeconds,
              let microseconds = Int64(exactly: (value * 1_000_000).rounded()) else { return nil }
        return .microseconds(microseconds)
    }

    /// Whole seconds, truncated toward zero; saturated at Int64's bounds (where
    /// `components` would trap).
    public var wholeSeconds: Int64 { Int64(clamping: attoseconds / 1_000_000_000_000_000_000) }

    /// Whole milliseconds, truncated toward zero; saturated at Int64's bounds.
    public var wholeMilliseconds: Int64 { Int64(clamping: attoseconds / 1_000_000_000_000_000) }
}
