// SPDX-License-Identifier: Apache-2.0
// What one `QueueBound.value` access costs, beside a plain stored property and a bare
// `dispatchPrecondition` (docs/PERFORMANCE.md, "Queue-bound state"). Not a package target:
//   swiftc -O -wmo -module-name SystemCalls Sources/SystemCalls/QueueBound.swift \
//       Benchmarks/QueueBoundBench/main.swift -o /tmp/queuebound-bench && /tmp/queuebound-bench
import Dispatch
import Glibc

final class Plain { var count = 0 }

@inline(never) func measure(_ name: String, _ rounds: Int, _ body: () -> Int) {
    var best = Duration.seconds(1_000)
    var result = 0
    for _ in 0..<5 {
        let start = ContinuousClock.now
        result &+= body()
        best = min(best, ContinuousClock.now - start)
    }
    let nanoseconds = Double(best.components.attoseconds) / 1e9 + Double(best.components.seconds) * 1e9
    print("\(name): \((nanoseconds / Double(rounds) * 100).rounded() / 100) ns per access (best of 5; \(result))")
}

let rounds = 10_000_000
let queue = DispatchQueue(label: "queuebound-bench")
let plain = Plain()
let bound = QueueBound(sending: 0, on: queue)
queue.sync {
    measure("plain stored property", rounds) {
        for _ in 0..<rounds { plain.count &+= 1 }
        return plain.count
    }
    measure("dispatchPrecondition alone", rounds) {
        for _ in 0..<rounds { dispatchPrecondition(condition: .onQueue(queue)) }
        return rounds
    }
    measure("QueueBound.value += 1", rounds) {
        for _ in 0..<rounds { bound.value &+= 1 }
        return bound.value
    }
}
