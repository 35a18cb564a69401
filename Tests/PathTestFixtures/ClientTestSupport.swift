// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Glibc
import PathSocketClient
import Synchronization
import SystemCalls
import Testing

/// What a handler was called with, in order. `next` waits for the next value not yet
/// taken, with a deadline that fails the test; a test shows that nothing else came by
/// waiting for a sentinel it caused afterwards, which must then be the next value.
///
/// `@unchecked Sendable`: `values` and `taken` are touched only with `condition` locked.
public final class Received<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [Value] = []
    private var taken = 0

    public init() {}

    public func append(_ value: Value) {
        condition.lock()
        values.append(value)
        condition.broadcast()
        condition.unlock()
    }

    /// Everything received so far.
    public var all: [Value] {
        condition.lock()
        defer { condition.unlock() }
        return values
    }

    /// The next value not yet taken; throws when none comes within `timeout`.
    public func next(_ description: String, timeout: Duration = .seconds(10)) throws -> Value {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while taken == values.count {
            if !condition.wait(until: deadline) && taken == values.count {
                throw PathClientError("no value for \(description) within \(timeout); received: \(values)")
            }
        }
        taken += 1
        return values[taken - 1]
    }
}

/// A clock the test turns (as NIO's EmbeddedEventLoop): `schedule` only records the
/// work and its delay; `runNext` runs the oldest on its queue, as if its delay had
/// passed, and moves `now()` to when it was due; `advance(by:)` moves it by hand.
/// Nothing here sleeps.
///
/// `@unchecked Sendable`: `pending`, `delays` and `elapsed` are touched only with
/// `condition` locked.
public final class ManualScheduler: Scheduler, @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [(queue: DispatchQueue, due: Duration, work: @Sendable () -> Void)] = []
    private var delays: [Duration] = []
    /// How far the clock has been turned since `start`.
    private var elapsed = Duration.zero
    private let start = ContinuousClock.now

    public init() {}

    public func schedule(after delay: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append((queue, elapsed + delay, work))
        delays.append(delay)
        condition.broadcast()
        condition.unlock()
    }

    public func now() -> ContinuousClock.Instant {
        condition.lock()
        defer { condition.unlock() }
        return start + elapsed
    }

    /// Turns the clock; nothing scheduled runs by itself.
    public func advance(by duration: Duration) {
        condition.lock()
        elapsed += duration
        condition.unlock()
    }

    /// Waits until `count` works have been scheduled in all, and returns every delay asked for.
    @discardableResult
    public func waitForScheduled(_ count: Int, timeout: Duration = .seconds(10)) throws -> [Duration] {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while delays.count < count {
            if !condition.wait(until: deadline) && delays.count < count {
                throw PathClientError("\(delays.count) of \(count) works scheduled within \(timeout): \(delays)")
            }
        }
        return delays
    }

    /// The delays of the works scheduled and not yet run, oldest first.
    public var pendingDelays: [Duration] {
        condition.lock()
        defer { condition.unlock() }
        return Array(delays.suffix(pending.count))
    }

    /// Waits until some work is scheduled and not yet run, and returns its delay.
    public func waitForPending(timeout: Duration = .seconds(10)) throws -> Duration {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty {
            if !condition.wait(until: deadline) && pending.isEmpty {
                throw PathClientError("nothing scheduled within \(timeout)")
            }
        }
        return delays[delays.count - pending.count]
    }

    /// Runs the oldest work not yet run, the clock moved to when it was due.
    public func runNext() throws {
        condition.lock()
        guard !pending.isEmpty else {
            condition.unlock()
            throw PathClientError("nothing is scheduled")
        }
        let (queue, due, work) = pending.removeFirst()
        elapsed = max(elapsed, due)
        condition.unlock()
        queue.async(execute: work)
    }
}

/// Values from a list, in turn, as a `random` source for back-off jitter.
public final class PinnedRandom: Sendable {
    private let values: [Double]
    private let index = Mutex(0)

    public init(_ values: [Double]) {
        self.values = values
    }

    public func next() -> Double {
        index.withLock { index in
            defer { index += 1 }
            return values[index % values.count]
        }
    }
}

/// A request that fails the way an app's request fails while the path is satisfied:
/// a TCP connect to 127.0.0.1 refused (the port is bound, nobody listens). On a thread in
/// the test process's own namespace (`NetworkNamespace.onHostThread`), not whichever
/// namespace the calling thread was started in.
public func refusedConnectToLoopback() throws -> Int32 {
    try NetworkNamespace.onHostThread { try refusedConnectOnThisThread() }
}

private func refusedConnectOnThisThread() throws -> Int32 {
    let bound = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard bound >= 0 else { throw PathClientError("socket: \(Errno.current)") }
    defer { close(bound) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Bool in
            bind(bound, address, length) == 0 && getsockname(bound, address, &length) == 0
        }
    }
    guard named else { throw PathClientError("bind 127.0.0.1: \(Errno.current)") }
    let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard client >= 0 else { throw PathClientError("socket: \(Errno.current)") }
    defer { close(client) }
    let result = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
    }
    return result == 0 ? 0 : errno
}
