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
/// so a short test never queues behind the systems; the rest wait without holding a
/// thread.
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
public final class TestLanes: Sendable {
    /// Tests in this process and short child programs: bounded only so that they never
    /// exhaust Dispatch's worker threads (255), each test holding one while it blocks.
    public static let everyday = TestLanes(count: 32)
    /// Tests that start whole systems: real daemons in network namespaces, containers
    /// booting systemd (`PATHD_TEST_LANES`, default 4: on two cores more only adds
    /// waiting, measured in docs/ARCHITECTURE.md, "Tests on two cores").
    public static let systems = TestLanes(count: {
        guard let text = ProcessInfo.processInfo.environment["PATHD_TEST_LANES"], let value = Int(text), value > 0
        else { return 4 }
        return value
    }())

    private let lanes: Lanes

    private init(count: Int) {
        lanes = Lanes(count: count)
    }

    fileprivate func acquire() async { await lanes.acquire() }
    fileprivate func release() async { await lanes.release() }
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

/// A counting semaphore whose waiters hold no thread.
private actor Lanes {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        free = count
    }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
