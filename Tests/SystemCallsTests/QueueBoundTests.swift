// SPDX-License-Identifier: Apache-2.0
import Dispatch
import SystemCalls
import Testing

/// `QueueBound`: on its queue the value is there; anywhere else the process traps, which
/// an exit test sees from outside (the child process is the one that dies).
@Suite("state bound to one queue")
struct QueueBoundTests {
    @Test("on its queue the value is read and changed in place, and a copy sees the change")
    func onItsQueue() {
        let queue = DispatchQueue(label: "QueueBoundTests.onItsQueue")
        let bound = QueueBound(sending: [1], on: queue)
        let copy = bound
        queue.sync { bound.value.append(2) }
        #expect(queue.sync { copy.value } == [1, 2])
        #expect(bound.queue === queue)
    }

    @Test("bound on its queue, to an object the queue's code keeps using")
    func boundFromItsQueue() {
        final class Counter { var count = 0 }
        let queue = DispatchQueue(label: "QueueBoundTests.boundFromItsQueue")
        let done = DispatchSemaphore(value: 0)
        let count = queue.sync {
            let counter = Counter()
            let bound = QueueBound(counter, on: queue)
            queue.async {
                bound.value.count += 1
                done.signal()
            }
            return counter
        }
        done.wait()
        #expect(queue.sync { count.count } == 1)
    }

    @Test("reading it off its queue traps")
    func readOffItsQueueTraps() async {
        await #expect(processExitsWith: .failure) {
            let bound = QueueBound(sending: 1, on: DispatchQueue(label: "QueueBoundTests.read"))
            _ = bound.value
        }
    }

    @Test("changing it off its queue traps")
    func changeOffItsQueueTraps() async {
        await #expect(processExitsWith: .failure) {
            let bound = QueueBound(sending: [1], on: DispatchQueue(label: "QueueBoundTests.change"))
            bound.value.append(2)
        }
    }

    @Test("binding a shared value off its queue traps")
    func bindingOffItsQueueTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = QueueBound(1, on: DispatchQueue(label: "QueueBoundTests.bind"))
        }
    }

    @Test("on another queue it traps")
    func otherQueueTraps() async {
        await #expect(processExitsWith: .failure) {
            let bound = QueueBound(sending: 1, on: DispatchQueue(label: "QueueBoundTests.owner"))
            DispatchQueue(label: "QueueBoundTests.other").sync { _ = bound.value }
        }
    }
}
