import Dispatch
import Synchronization
import SystemCalls

/// A clock that moves only when the test says so: work scheduled "after a delay" is
/// recorded, and runs (on its queue) when the test calls `runNext()`.
final class ManualScheduler: Scheduler, Sendable {
    private struct Pending {
        var delay: Duration
        var queue: DispatchQueue
        var work: @Sendable () -> Void
    }

    private let pending = Mutex<[Pending]>([])
    private let scheduled = DispatchSemaphore(value: 0)

    func schedule(after delay: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(Pending(delay: delay, queue: queue, work: work)) }
        scheduled.signal()
    }

    /// The delays asked for so far and not yet run, oldest first.
    var delays: [Duration] { pending.withLock { $0.map(\.delay) } }

    /// Waits (10 s at most) until some work is scheduled and returns its delay.
    func waitForScheduled() throws -> Duration {
        while true {
            if let first = pending.withLock({ $0.first?.delay }) { return first }
            guard scheduled.wait(timeout: .now() + 10) == .success else { throw Timeout() }
        }
    }

    /// Runs the oldest scheduled work on its queue, as if its delay had passed.
    func runNext() {
        guard let next = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
        next.queue.async(execute: next.work)
    }

    struct Timeout: Error {}
}
