// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Conversions of times that come from outside the process (a file, a socket, the
/// kernel): each refuses or saturates, none traps, whatever the number.
@Suite("timestamp ranges and duration conversions")
struct TimestampRangeTests {
    @Test("seconds(fractional:) refuses what has no microsecond count, and keeps what has", arguments: [
        Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        1e13, -1e13, 1e300, 9_223_372_036_855, -9_223_372_036_855, 9.3e12,
    ])
    func fractionalRefused(value: Double) {
        #expect(Duration.seconds(fractional: value) == nil)
    }

    @Test("seconds(fractional:) to the microsecond within its range")
    func fractionalKept() {
        #expect(Duration.seconds(fractional: 1_796_150_000.25) == .milliseconds(1_796_150_000_250))
        #expect(Duration.seconds(fractional: -1.5) == .milliseconds(-1500))
        #expect(Duration.seconds(fractional: 0.0000004) == .zero)
        #expect(Duration.seconds(fractional: 9e12) == .seconds(9_000_000_000_000))
        #expect(Duration.seconds(fractional: -Duration.maximumFractionalSeconds) != nil)
    }

    @Test("whole seconds and milliseconds saturate instead of trapping")
    func saturating() {
        let huge = Duration.seconds(Int64.max) + .seconds(Int64.max)
        #expect(huge.wholeSeconds == Int64.max && huge.wholeMilliseconds == Int64.max)
        #expect((Duration.zero - huge).wholeSeconds == Int64.min)
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == Int64.max)
        #expect(Duration.milliseconds(-1500).wholeSeconds == -1 && Duration.milliseconds(-1500).wholeMilliseconds
                == -1500)
        #expect(TimeSpan.milliseconds(huge) == Int64.max)
        #expect(TimeSpan.milliseconds(.seconds(Int64.min)) == 0)
        #expect(TimeSpan.render(.seconds(Int64.max)).hasPrefix("106751991167d "))
    }

    @Test("a timestamp is plausible from 1970 to the end of 9999 with a monotonic time ≥ 0")
    func plausible() {
        let end = Duration.seconds(253_402_300_800)
        #expect(Timestamp(wall: .zero, monotonic: .zero).isPlausible)
        #expect(Timestamp(wall: end - .milliseconds(1), monotonic: end - .milliseconds(1)).isPlausible)
        #expect(!Timestamp(wall: end, monotonic: .zero).isPlausible)
        #expect(!Timestamp(wall: .milliseconds(-1), monotonic: .zero).isPlausible)
        #expect(!Timestamp(wall: .zero, monotonic: .milliseconds(-1)).isPlausible)
        #expect(!Timestamp(wall: .zero, monotonic: end).isPlausible)
        #expect(Timestamp(wall: end - .seconds(1), monotonic: .zero).utc.description == "9999-12-31T23:59:59Z")
    }
}
