// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathDaemon
import PathModel
import Synchronization

/// An event source that replays values: the boundary the daemon owns, faked as a
/// plain object (no kernel). Its first batch is whatever state the test set up. Like the
/// netlink monitor it calls back on a queue of its own, never the state queue.
public final class FakeEventSource: PathEventSource, Sendable {
    public let generation: Generation
    /// The fake kernel's routing answers (`FakeNetwork.routes`).
    private let network: FakeNetwork?
    private let callbacks: SourceCallbacks
    private let queue: DispatchQueue
    private let initialState: [NetworkEvent]
    private let failsToStart: Bool
    /// Held by the test: the "dump" waits on it, as a real dump of a huge table takes time.
    private let startGate: DispatchSemaphore?
    private let cancelledFlag = Mutex(false)

    public init(generation: Generation, callbacks: SourceCallbacks, queue: DispatchQueue, initialState: [NetworkEvent],
         failsToStart: Bool = false, startGate: DispatchSemaphore? = nil, network: FakeNetwork? = nil) {
        self.network = network
        self.generation = generation
        self.callbacks = callbacks
        self.queue = queue
        self.initialState = initialState
        self.failsToStart = failsToStart
        self.startGate = startGate
    }

    public var isCancelled: Bool { cancelledFlag.withLock { $0 } }

    public func start() {
        queue.async { [self] in
            startGate?.wait()
            if failsToStart {
                callbacks.lost(generation, .failure("test start failure"))
            } else {
                callbacks.deliver(EventBatch(generation: generation, isFullState: true, events: initialState))
            }
        }
    }

    public func cancel() {
        cancelledFlag.withLock { $0 = true }
    }

    /// Answers from the fake kernel's routes on the source's queue, as the netlink
    /// monitor answers on its own, all questions in one turn; a held lookup waits there
    /// for the test's gate. The fake keeps no known answers: each is asked again.
    public func lookUpRoutes(_ questions: [RouteQuestion],
                             reply: @escaping @Sendable ([Result<AskedLookup, RouteLookupError>]) -> Void) {
        queue.async { [network, generation] in
            guard let network else {
                reply(questions.map { _ in .failure(RouteLookupError("the fake source has no network")) })
                return
            }
            reply(questions.map {
                network.answerLookup(to: $0.destination, through: $0.interface).map {
                    AskedLookup(DestinationLookup(route: $0), askedAt: LookupStamp(generation: generation, batch: 0))
                }
            })
        }
    }

    /// Recorded by the fake kernel (`FakeNetwork.watchedDestinations`), in order with the lookups.
    public func passRoutes(covering destinations: Set<IPAddress>) {
        queue.async { [network] in network?.watched(destinations) }
    }

    /// Recorded by the fake kernel (`FakeNetwork.refreshedNeighbours`); the fake has no
    /// neighbour table to answer from (a test emits the entries it wants).
    public func refreshNeighbours(_ gateways: [Neighbour.Key]) {
        queue.async { [network] in network?.refreshed(gateways) }
    }

    /// Delivers a batch of changes from the source's queue, as a real source does. A
    /// cancelled source still delivers: the daemon's generation gate must drop it.
    public func emit(_ events: [NetworkEvent]) {
        let batch = EventBatch(generation: generation, isFullState: false, events: events)
        queue.async { [callbacks] in callbacks.deliver(batch) }
    }

    /// Reports lost events (a kernel overrun).
    public func overrun() {
        queue.async { [callbacks, generation] in callbacks.lost(generation, .overrun) }
    }
}

/// The fake kernel: what a new source instance dumps, and every instance made so far.
public final class FakeNetwork: Sendable {
    private struct State {
        var events: [NetworkEvent]
        var sources: [FakeEventSource] = []
        /// How many of the next instances fail in `start()`.
        var failingStarts = 0
        /// The gate the next instance's start waits on, if any.
        var nextStartGate: DispatchSemaphore?
        /// The kernel's answer to a route lookup, by destination; `.noRoute` otherwise.
        var routes: [IPAddress: Result<RouteLookup, RouteLookupError>] = [:]
        /// Answers given once each, in order, before `routes` (`answerNext`).
        var nextAnswers: [IPAddress: [Result<RouteLookup, RouteLookupError>]] = [:]
        /// The gate the next route lookup waits on, if any.
        var nextLookupGate: DispatchSemaphore?
        /// Every destination looked up, in order.
        var lookedUp: [IPAddress] = []
        /// The interface each lookup was asked through (RTA_OIF), in the same order.
        var lookedUpThrough: [InterfaceIndex?] = []
        /// What the sources were last told to let through for watched routes.
        var watchedDestinations: Set<IPAddress> = []
        /// Each time the sources were asked about gateways' neighbour entries, what.
        var refreshedNeighbours: [[Neighbour.Key]] = []
    }

    private let state: Mutex<State>
    /// Signalled each time an instance is made.
    private let made = DispatchSemaphore(value: 0)
    /// Signalled each time a route lookup reaches the fake kernel.
    private let lookupArrived = DispatchSemaphore(value: 0)

    public init(_ events: [NetworkEvent]) {
        state = Mutex(State(events: events))
    }

    /// Sets what the next instance's dump will contain.
    public func setState(_ events: [NetworkEvent]) {
        state.withLock { $0.events = events }
    }

    public var sources: [FakeEventSource] { state.withLock { $0.sources } }

    /// Sets what a route lookup of `destination` answers.
    public func setRoute(to destination: IPAddress, _ answer: Result<RouteLookup, RouteLookupError>) {
        state.withLock { $0.routes[destination] = answer }
    }

    /// Makes the next lookups of `destination` answer `answers`, one each, in order; then
    /// `setRoute`'s answer again.
    public func answerNext(_ destination: IPAddress, _ answers: [Result<RouteLookup, RouteLookupError>]) {
        state.withLock { $0.nextAnswers[destination, default: []] += answers }
    }

    /// Makes the next route lookup wait (on the fake kernel's queue) until the returned
    /// gate is signalled, as a lookup behind a long dump would.
    public func holdNextLookup() -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        state.withLock { $0.nextLookupGate = gate }
        return gate
    }

    /// Waits (10 s at most) for the next route lookup to reach the fake kernel.
    public func waitForLookup() -> Bool {
        lookupArrived.wait(timeout: .now() + 10) == .success
    }

    /// The destinations looked up so far, in order.
    public var lookedUp: [IPAddress] { state.withLock { $0.lookedUp } }
    /// The interface each of `lookedUp` was asked through; nil where none was named.
    public var lookedUpThrough: [InterfaceIndex?] { state.withLock { $0.lookedUpThrough } }

    /// The destinations a source was last told are watched (`passRoutes(covering:)`).
    public var watchedDestinations: Set<IPAddress> { state.withLock { $0.watchedDestinations } }

    /// Each time a source was asked about gateways' neighbour entries, what.
    public var refreshedNeighbours: [[Neighbour.Key]] { state.withLock { $0.refreshedNeighbours } }

    fileprivate func refreshed(_ gateways: [Neighbour.Key]) {
        state.withLock { $0.refreshedNeighbours.append(gateways) }
    }

    /// Called on the fake kernel's queue.
    fileprivate func watched(_ destinations: Set<IPAddress>) {
        state.withLock { $0.watchedDestinations = destinations }
    }

    /// Called on the fake kernel's queue.
    fileprivate func answerLookup(to destination: IPAddress,
                                  through interface: InterfaceIndex?) -> Result<RouteLookup, RouteLookupError> {
        let gate = state.withLock { state in
            state.lookedUp.append(destination)
            state.lookedUpThrough.append(interface)
            defer { state.nextLookupGate = nil }
            return state.nextLookupGate
        }
        lookupArrived.signal()
        gate?.wait()
        return state.withLock { state in
            if let next = state.nextAnswers[destination]?.first {
                state.nextAnswers[destination]?.removeFirst()
                return next
            }
            return state.routes[destination] ?? .success(.noRoute)
        }
    }

    /// Waits (10 s at most) until `count` instances were made; false if they were not.
    public func waitForSources(_ count: Int) -> Bool {
        let deadline = DispatchTime.now() + 10
        while sources.count < count {
            guard made.wait(timeout: deadline) == .success else { return false }
        }
        return true
    }

    /// Makes the next instance's start (its dump) wait until the returned gate is signalled.
    public func holdNextStart() -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        state.withLock { $0.nextStartGate = gate }
        return gate
    }

    /// Makes the next `count` instances throw from `start()`.
    public func failNextStarts(_ count: Int) {
        state.withLock { $0.failingStarts = count }
    }

    public var latest: FakeEventSource {
        guard let last = sources.last else { preconditionFailure("no source was made yet") }
        return last
    }

    /// Every instance calls back on `queue`, the fake kernel's own serial queue.
    public func factory(queue: DispatchQueue = DispatchQueue(label: "pathd.test.fake-kernel"))
        -> PathEventSourceFactory {
        { [self] generation, callbacks in
            state.withLock { state in
                let fails = state.failingStarts > 0
                state.failingStarts -= fails ? 1 : 0
                let source = FakeEventSource(generation: generation, callbacks: callbacks, queue: queue,
                                             initialState: state.events, failsToStart: fails,
                                             startGate: state.nextStartGate, network: self)
                state.nextStartGate = nil
                made.signal()
                state.sources.append(source)
                return source
            }
        }
    }
}
