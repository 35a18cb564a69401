// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PathTestFixtures
import Synchronization
import SystemCalls
import Testing

/// `ReadinessThread`: the handler runs on the thread when the descriptor is readable and
/// when it is nudged, and not otherwise.
@Suite("the thread that waits for a descriptor", .blocking)
struct ReadinessThreadTests {
    /// A pipe whose read end the thread watches; nothing is ever written to it.
    private final class Silent: Sendable {
        let readEnd: Int32
        let writeEnd: Int32
        let calls = Mutex(0)
        let called = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw Errno(rawValue: errno) }
            readEnd = ends[0]
            writeEnd = ends[1]
        }

        func thread() throws -> ReadinessThread {
            try ReadinessThread(name: "test-readiness", descriptor: readEnd, onReadable: { [self] in
                calls.withLock { $0 += 1 }
                called.signal()
                return .wait
            }, onStop: { [self] in stopped.signal() })
        }

        func close() {
            _ = Glibc.close(readEnd)
            _ = Glibc.close(writeEnd)
        }
    }

    @Test("a nudge has the handler called once more although the descriptor is not readable")
    func nudgeCallsTheHandler() throws {
        let pipe = try Silent()
        defer { pipe.close() }
        let thread = try pipe.thread()
        thread.nudge()
        #expect(pipe.called.wait(timeout: .now() + 10) == .success, "the handler was not called after a nudge")
        thread.nudge()
        #expect(pipe.called.wait(timeout: .now() + 10) == .success, "a second nudge was not answered")
        thread.stop()
        #expect(pipe.stopped.wait(timeout: .now() + 10) == .success)
        // Two nudges, each answered by one call: nothing was called for the silent pipe.
        #expect(pipe.calls.withLock { $0 } == 2)
    }
}
