/// Bounds how often route-only changes cost a lookup.
///
/// `ip -batch`, a routing daemon loading a full table, or a flapping BGP peer deliver
/// route messages one by one, and the monitor then wakes for nearly every one: two
/// RTM_GETROUTE round trips per message made pathd spend twice the CPU of `ip monitor`
/// on a million-route flood (docs/PERFORMANCE.md). Up to `burst` lookups per `window`
/// run at once, so a person's route change is answered immediately; past that, the
/// next one waits for the window's end and answers everything that arrived meanwhile.
/// Link and address changes are never held back (the caller does not ask).
struct LookupThrottle {
    let burst: Int
    /// Nanoseconds.
    let window: UInt64

    private var windowStart: UInt64 = 0
    private var used = 0

    /// By default 8 lookups per 10 ms: a flood costs at most 800 a second.
    init(burst: Int = 8, window: UInt64 = 10_000_000) {
        self.burst = burst
        self.window = window
    }

    /// Counts a lookup at `now` (monotonic nanoseconds): nil when it may run now, else
    /// the moment it may run.
    mutating func admit(now: UInt64) -> UInt64? {
        if now >= windowStart &+ window {
            windowStart = now
            used = 0
        }
        if used < burst {
            used += 1
            return nil
        }
        return windowStart &+ window
    }
}
