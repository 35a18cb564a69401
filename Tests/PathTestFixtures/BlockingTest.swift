// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Testing

/// `.blocking`: the suite's tests block (child processes, sockets, polling waits, daemons
/// started in process), so each runs on a thread of its own instead of the Swift
/// concurrency pool.
///
/// Why: Swift Testing calls a synchronous test from a task on the pool, which has one
/// thread per core (two here). A test that blocks holds its thread for as long as it
/// blocks, and every `async` test whose continuation needs a thread waits behind it: in a
/// fresh clone's `make test` a test that runs in 0.03 s alone passed after 73.8 s (time
/// limit 60 s), while pure computations beside it took 28 s; a thread dump of the stalled
/// run showed the pool's one runnable thread in `waitUntil`'s poll of a kernel test
/// (docs/ARCHITECTURE.md, "Tests on two cores").
///
/// Each test case gets a serial queue of its own and runs there under a task-executor
/// preference, so its blocking calls hold a Dispatch worker that is not the pool's, and
/// its `async` code (a `for await` over a monitor) runs there too. `.serialized` still
/// orders the tests of a suite. How many run at once is bounded by their lanes
/// (`TestLanes`): tests that start whole systems (network namespaces with real daemons,
/// containers) take one of `TestLanes.systems`, the rest one of `TestLanes.everyday`,
/// so a short test never queues behind the systems, and a test that counts the whole
/// process's threads runs `alone`; the rest wait without holding a thread.
///
/// The fixtures that block (`waitUntil`, `ChildProcess`, `DaemonHarness`, `FakeDaemon`,
/// `OutputLines.waitFor`) call `BlockingTest.requireOwnThread` and throw when called
/// from the pool, so a suite that forgets `.blocking` fails with the reason instead of
/// slowing everything else down.
public struct BlockingTest: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }
    private let lanes: TestLanes

    init(lanes: TestLanes) {
        self.lanes = lanes
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // The suite's own scope runs its tests; each test case takes a lane and a thread.
        guard testCase != nil else {
            try await function()
            return
        }
        await lanes.acquire()
        let outcome: Result<Void, any Error>
        do {
            try await withTaskExecutorPreference(QueueExecutor(name: test.name)) {
                try await function()
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await lanes.release()
        try outcome.get()
    }

    /// The queue key whose value marks a `.blocking` test's own queue.
    fileprivate static let ownQueue = DispatchSpecificKey<Bool>()

    /// Throws unless the caller runs where it may block: on a `.blocking` test's own
    /// queue, or outside any Swift task (a thread or a Dispatch queue of the test's).
    public static func requireOwnThread(_ what: @autoclosure () -> String) throws {
        if DispatchQueue.getSpecific(key: ownQueue) == true { return }
        let inTask = withUnsafeCurrentTask { $0 != nil }
        guard inTask else { return }
        throw HarnessError("\(what()) blocks, and this test runs on the Swift concurrency pool (two threads "
            + "here): mark its suite `.blocking` (PathTestFixtures/BlockingTest.swift)")
    }

    /// Runs `body`, which blocks briefly and once (a probe while Swift Testing evaluates a
    /// suite's `.enabled(if:)`), wherever the caller runs, the pool included.
    public static func allowingBriefBlock<Value>(_ body: () throws -> Value) rethrows -> Value {
        try briefBlocks.sync(execute: body)
    }

    /// `sync` runs the block on the calling thread, marked as allowed to block.
    private static let briefBlocks: DispatchQueue = {
        let queue = DispatchQueue(label: "pathd.test.brief-block")
        queue.setSpecific(key: ownQueue, value: true)
        return queue
    }()
}

extension Trait where Self == BlockingTest {
    /// The suite's tests block: each runs on a thread of its own (`BlockingTest`), on
    /// the everyday lanes.
    public static var blocking: BlockingTest { BlockingTest(lanes: .everyday) }

    /// The suite's tests block and start whole systems: each runs on a thread of its own,
    /// on `lanes`.
    public static func blocking(_ lanes: TestLanes) -> BlockingTest { BlockingTest(lanes: lanes) }
}

/// How many `.blocking` tests of a kind run at once; the others wait, holding no thread.
public struct TestLanes: Sendable {
    fileprivate enum Kind: Sendable {
        case everyday
        case systems
        case alone
    }

    fileprivate let kind: Kind

    /// Tests in this process and short child programs: bounded only so that they never
    /// exhaust Dispatch's worker threads (255), each test holding one while it blocks.
    public static let everyday = TestLanes(kind: .everyday)
    /// Tests that start whole systems: real daemons in network namespaces, containers
    /// booting systemd (`PATHD_TEST_LANES` at once, default 4: on two cores more only adds
    /// waiting).
    public static let systems = TestLanes(kind: .systems)
    /// A test that measures the whole process (its threads): it runs when no other
    /// blocking test does, after the others if need be.
    public static let alone = TestLanes(kind: .alone)

    fileprivate static let everydayCount = 32
    fileprivate static let systemsCount: Int = {
        guard let text = ProcessInfo.processInfo.environment["PATHD_TEST_LANES"], let value = Int(text), value > 0
        else { return 4 }
        return value
    }()

    fileprivate static let scheduler = LaneScheduler()

    fileprivate func acquire() async { await Self.scheduler.acquire(kind) }
    fileprivate func release() async { await Self.scheduler.release(kind) }
}

/// Who runs: every kind bounded by its count, `alone` only when nothing else runs. Waiters
/// hold no thread and are let in in arrival order as far as the bounds allow.
private actor LaneScheduler {
    private var running: [TestLanes.Kind: Int] = [:]
    private var waiting: [(kind: TestLanes.Kind, continuation: CheckedContinuation<Void, Never>)] = []

    func acquire(_ kind: TestLanes.Kind) async {
        // Behind earlier waiters of its kind only: an `alone` waiting for the others to
        // finish holds no one back.
        if admits(kind) && !waiting.contains(where: { $0.kind == kind }) {
            running[kind, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting.append((kind, $0)) }
    }

    func release(_ kind: TestLanes.Kind) {
        running[kind, default: 0] -= 1
        var index = 0
        while index < waiting.count {
            let waiter = waiting[index]
            if admits(waiter.kind) {
                waiting.remove(at: index)
                running[waiter.kind, default: 0] += 1
                waiter.continuation.resume()
            } else {
                index += 1
            }
        }
    }

    private func admits(_ kind: TestLanes.Kind) -> Bool {
        if running[.alone, default: 0] > 0 { return false }
        switch kind {
        case .everyday: return running[.everyday, default: 0] < TestLanes.everydayCount
        case .systems: return running[.systems, default: 0] < TestLanes.systemsCount
        case .alone: return running.values.allSatisfy { $0 == 0 }
        }
    }
}

/// Runs a task's jobs on a serial Dispatch queue of its own, off the concurrency pool.
private final class QueueExecutor: TaskExecutor, Sendable {
    private let queue: DispatchQueue

    init(name: String) {
        queue = DispatchQueue(label: "pathd.test.\(name)")
        queue.setSpecific(key: BlockingTest.ownQueue, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
