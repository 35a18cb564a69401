import Dispatch
import PathDaemon
import PathModel
import Synchronization

/// An event source that replays values: the boundary the daemon owns, faked as a
/// plain object (no kernel). Its first batch is whatever state the test set up. Like the
/// netlink monitor it calls back on a queue of its own, never the state queue.
final class FakeEventSource: PathEventSource, Sendable {
    let generation: Generation
    private let callbacks: SourceCallbacks
    private let queue: DispatchQueue
    private let initialState: [NetworkEvent]
    private let failsToStart: Bool
    private let cancelledFlag = Mutex(false)

    init(generation: Generation, callbacks: SourceCallbacks, queue: DispatchQueue, initialState: [NetworkEvent],
         failsToStart: Bool = false) {
        self.generation = generation
        self.callbacks = callbacks
        self.queue = queue
        self.initialState = initialState
        self.failsToStart = failsToStart
    }

    var isCancelled: Bool { cancelledFlag.withLock { $0 } }

    func start() {
        queue.async { [self] in
            if failsToStart {
                callbacks.lost(generation, .failure("test start failure"))
            } else {
                callbacks.deliver(EventBatch(generation: generation, isFullState: true, events: initialState))
            }
        }
    }

    func cancel() {
        cancelledFlag.withLock { $0 = true }
    }

    /// Delivers a batch of changes from the source's queue, as a real source does. A
    /// cancelled source still delivers: the daemon's generation gate must drop it.
    func emit(_ events: [NetworkEvent]) {
        let batch = EventBatch(generation: generation, isFullState: false, events: events)
        queue.async { [callbacks] in callbacks.deliver(batch) }
    }

    /// Reports lost events (a kernel overrun).
    func overrun() {
        queue.async { [callbacks, generation] in callbacks.lost(generation, .overrun) }
    }
}

/// The fake kernel: what a new source instance dumps, and every instance made so far.
final class FakeNetwork: Sendable {
    private struct State {
        var events: [NetworkEvent]
        var sources: [FakeEventSource] = []
        /// How many of the next instances fail in `start()`.
        var failingStarts = 0
    }

    private let state: Mutex<State>

    init(_ events: [NetworkEvent]) {
        state = Mutex(State(events: events))
    }

    /// Sets what the next instance's dump will contain.
    func setState(_ events: [NetworkEvent]) {
        state.withLock { $0.events = events }
    }

    var sources: [FakeEventSource] { state.withLock { $0.sources } }

    /// Makes the next `count` instances throw from `start()`.
    func failNextStarts(_ count: Int) {
        state.withLock { $0.failingStarts = count }
    }

    var latest: FakeEventSource {
        guard let last = sources.last else { preconditionFailure("no source was made yet") }
        return last
    }

    /// Every instance calls back on `queue`, the fake kernel's own serial queue.
    func factory(queue: DispatchQueue = DispatchQueue(label: "pathd.test.fake-kernel")) -> PathEventSourceFactory {
        { [self] generation, callbacks in
            state.withLock { state in
                let fails = state.failingStarts > 0
                state.failingStarts -= fails ? 1 : 0
                let source = FakeEventSource(generation: generation, callbacks: callbacks, queue: queue,
                                             initialState: state.events, failsToStart: fails)
                state.sources.append(source)
                return source
            }
        }
    }
}
