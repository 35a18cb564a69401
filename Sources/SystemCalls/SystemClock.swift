// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The system's clocks (clock_gettime(2)), in nanoseconds.
public enum SystemClock {
    /// CLOCK_REALTIME: wall-clock time since the Unix epoch; may jump.
    public static var realtimeNanoseconds: Int64 { read(CLOCK_REALTIME) }
    /// CLOCK_MONOTONIC: monotonic since boot, suspend excluded; what systemd's
    /// MONOTONIC_USEC means.
    public static var monotonicNanoseconds: Int64 { read(CLOCK_MONOTONIC) }
    /// CLOCK_BOOTTIME: monotonic since boot, suspend included; never jumps.
    public static var boottimeNanoseconds: Int64 { read(CLOCK_BOOTTIME) }

    private static func read(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        // Fails only for an invalid clock id; these exist on every Linux since 2.6.39.
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
