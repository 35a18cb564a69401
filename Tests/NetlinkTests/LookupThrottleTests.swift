@testable import Netlink
import Testing

@Suite("lookup throttle")
struct LookupThrottleTests {
    @Test("a burst goes at once, the rest waits for the window's end, then a new burst")
    func burstThenWait() {
        var throttle = LookupThrottle(burst: 3, window: 1000)
        #expect(throttle.admit(now: 5000) == nil)
        #expect(throttle.admit(now: 5001) == nil)
        #expect(throttle.admit(now: 5002) == nil)
        #expect(throttle.admit(now: 5003) == 6000)
        #expect(throttle.admit(now: 5999) == 6000)
        #expect(throttle.admit(now: 6000) == nil)
    }

    @Test("isolated changes are never held back")
    func sparseChanges() {
        var throttle = LookupThrottle(burst: 1, window: 1000)
        for step in 0..<10 {
            #expect(throttle.admit(now: UInt64(step) * 1000) == nil)
        }
    }
}
