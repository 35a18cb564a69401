// SPDX-License-Identifier: Apache-2.0
import PathModel
import SystemCalls

/// The system's clocks: CLOCK_REALTIME for the wall clock, CLOCK_BOOTTIME as the
/// monotonic one (it counts suspend too, so an outage across a suspend keeps its length).
public struct SystemTimeSource: TimeSource {
    public init() {}

    public func now() -> Timestamp {
        Timestamp(wall: .nanoseconds(SystemClock.realtimeNanoseconds),
                  monotonic: .nanoseconds(SystemClock.boottimeNanoseconds))
    }
}
