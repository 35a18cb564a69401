// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import ServiceSupport
import SystemCalls

/// The kernel's state as the evaluator needs it, kept current: one event source per
/// generation, replaced when it loses events, and the snapshot its batches build. The
/// daemon and the client library's in-process mode both run it; each evaluates its own
/// criteria from `snapshot` when `onChange` says something changed.
///
/// Threading: every stored property below is read and written on `queue` only, and
/// every entry point checks it with `dispatchPrecondition`. A source delivers on a
/// queue or thread of its own; a batch enters `queue` with `sync` (run on the source's
/// thread when the queue is free), a loss with `async`, and the generation gate is
/// checked on `queue`. `@unchecked Sendable` because Dispatch blocks and the source's
/// callbacks are `@Sendable` closures that capture `self`; they all run on `queue`.
public final class KernelStateTracker: @unchecked Sendable {
    /// Sources that fail before a first state, in a row, before the tracker gives up
    /// (no netlink at all). One overrun during the very first dump is normal on a busy
    /// host; three failures in a row are not.
    public static let startAttempts = 3
    /// The wait before replacing a source that failed to start once the tracker had a
    /// state: the kernel is up, so it is probably a burst; no reason to spin.
    public static let restartDelay = Duration.seconds(1)

    public let queue: DispatchQueue
    private let makeSource: PathEventSourceFactory
    private let log: Logger
    private let scheduler: any Scheduler

    private enum Lifecycle { case idle, running, stopped }
    private var lifecycle = Lifecycle.idle

    /// The generation of `source`; batches from any other are stale.
    public private(set) var generation = Generation.first
    private var source: (any PathEventSource)?
    /// Whether `source` delivered its first, full-state batch.
    private var sourceHasState = false
    /// Sources that failed before their first batch since the last one that had one.
    private var failedStarts = 0
    public private(set) var snapshot = Snapshot()
    /// Whether a full-state batch of some generation has arrived (the first path exists).
    public private(set) var hasState = false
    /// Why the current generation was started, until its first batch is applied.
    private var pendingResync: String?
    /// The owner of the watched routes (it registers itself), whose destinations each
    /// source is told (`watchedDestinationsChanged`). Weak: the watcher holds the tracker.
    weak var routeWatcher: RouteWatcher?

    /// Called on `queue` after the snapshot changed. `resync` is the reason a new
    /// generation was started, on the first batch of that generation, nil otherwise.
    public var onChange: ((_ resync: String?) -> Void)?
    /// Called on `queue` each time the current source is lost, before it is replaced
    /// (the daemon counts overruns).
    public var onSourceLost: ((SourceLoss) -> Void)?
    /// Called on `queue`, once, when `startAttempts` sources failed before the tracker
    /// had any state: the kernel cannot be watched at all.
    public var onFatal: ((String) -> Void)?

    public init(queue: DispatchQueue, log: Logger, scheduler: any Scheduler = DispatchScheduler(),
                makeSource: @escaping PathEventSourceFactory) {
        self.queue = queue
        self.log = log
        self.scheduler = scheduler
        self.makeSource = makeSource
    }

    /// Starts the first source; returns at once. The first state arrives through
    /// `onChange`, or `onFatal` says it never will.
    public func start() {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(lifecycle == .idle, "a KernelStateTracker is started once")
        lifecycle = .running
        startSource()
    }

    /// Cancels the source; nothing is delivered afterwards. Idempotent.
    public func stop() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running else { return }
        lifecycle = .stopped
        source?.cancel()
        source = nil
    }

    /// Whether the resolver configuration names a nameserver (from `ResolverWatcher`).
    public func setDNSConfigured(_ configured: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard configured != snapshot.dnsConfigured else { return }
        snapshot.dnsConfigured = configured
        if hasState { onChange?(nil) }
    }

    /// Asks the current source which route the kernel would take to `destination`;
    /// `reply` is called once, on `queue`. The lookup runs on the source's own queue, so
    /// the state queue waits for nothing. With no source (the tracker stopped, or a
    /// failed source waits to be replaced) the reply is a failure at once.
    ///
    /// The address is looked up where a socket sends its traffic
    /// (`IPAddress.socketDestination`: an IPv4-mapped address as its IPv4 address, `::` as
    /// `::1`); judge the answer with `PathEvaluator.route`, which knows. `interface` is a
    /// link-scoped destination's zone (RouteZone.swift).
    public func lookUpRoute(to destination: IPAddress, through interface: InterfaceIndex? = nil,
                            reply: @escaping @Sendable (Result<DestinationLookup, RouteLookupError>) -> Void) {
        lookUpRoutes([RouteQuestion(destination: destination, interface: interface)]) { answers in
            reply(answers.first ?? .failure(RouteLookupError("no answer")))
        }
    }

    /// `lookUpRoute` for several questions, asked together on the source's queue;
    /// `reply` gets one answer per question, in their order, on `queue`.
    public func lookUpRoutes(_ questions: [RouteQuestion],
                             reply: @escaping @Sendable ([Result<DestinationLookup, RouteLookupError>]) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running, let source else {
            let restarting = RouteLookupError("the network monitor is restarting; ask again")
            reply(questions.map { _ in .failure(restarting) })
            return
        }
        let asked = questions.map {
            RouteQuestion(destination: $0.destination.socketDestination, interface: $0.interface)
        }
        source.lookUpRoutes(asked) { [queue] answers in
            queue.async { reply(answers) }
        }
    }

    /// The routes `routeWatcher` watches changed: the source lets the route messages
    /// covering their destinations through (`PathEventSource.passRoutes`); each source
    /// that replaces it is told them before it starts.
    func watchedDestinationsChanged() {
        dispatchPrecondition(condition: .onQueue(queue))
        source?.passRoutes(covering: watchedDestinations)
    }

    /// The destinations of the watched routes, each where a socket sends its traffic, as
    /// it is looked up (`IPAddress.socketDestination`).
    private var watchedDestinations: Set<IPAddress> {
        Set((routeWatcher?.destinations ?? []).map(\.socketDestination))
    }

    private func startSource() {
        let generation = self.generation
        let callbacks = SourceCallbacks(
            // `sync`: a source delivers on a thread of its own, never this queue
            // (`SourceCallbacks.deliver`), so the batch is applied and published on that
            // thread when the queue is free: no hand-off to another thread.
            deliver: { [weak self] batch in
                guard let self else { return }
                queue.sync { self.receive(batch) }
            },
            lost: { [weak self] lostGeneration, loss in
                guard let self else { return }
                queue.async { self.sourceLost(lostGeneration, loss: loss) }
            })
        sourceHasState = false
        let source = makeSource(generation, callbacks)
        self.source = source
        // Before `start`, so that the new source's filter covers them from its first message.
        let destinations = watchedDestinations
        if !destinations.isEmpty { source.passRoutes(covering: destinations) }
        source.start()
    }

    private func receive(_ batch: EventBatch) {
        dispatchPrecondition(condition: .onQueue(queue))
        // The generation gate: checked here, after the hop onto the state queue, so a
        // batch a cancelled source had already sent cannot touch its successor's state.
        guard lifecycle == .running, batch.generation == generation else {
            log.debug("dropped a batch of stale generation \(batch.generation) (current \(generation))")
            return
        }
        if batch.isFullState {
            snapshot.replaceKernelState(with: batch.events)
            sourceHasState = true
            failedStarts = 0
        } else {
            guard sourceHasState else {
                log.warning("generation \(generation) delivered changes before its first full state; ignored")
                return
            }
            for event in batch.events { snapshot.apply(event) }
        }
        hasState = true
        let resync = batch.isFullState ? pendingResync : nil
        if batch.isFullState { pendingResync = nil }
        onChange?(resync)
    }

    private func sourceLost(_ lostGeneration: Generation, loss: SourceLoss) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running, lostGeneration == generation else { return }
        onSourceLost?(loss)
        let why = loss.description
        source?.cancel()
        source = nil
        let failedToStart = !sourceHasState
        generation = generation.next()
        if failedToStart {
            failedStarts += 1
            if !hasState && failedStarts >= Self.startAttempts {
                lifecycle = .stopped
                log.error("the network monitor failed to start \(failedStarts) times: \(why)")
                onFatal?(why)
                return
            }
        }
        if hasState {
            // Subscribers hear why once the new generation's state is in.
            if pendingResync == nil || !failedToStart { pendingResync = why }
        }
        if failedToStart && hasState {
            log.error("the network monitor failed to start again (\(why)); retrying as generation \(generation) in 1 s")
            let retry = generation
            scheduler.schedule(after: Self.restartDelay, on: queue) { [weak self] in
                guard let self, lifecycle == .running, generation == retry, source == nil else { return }
                startSource()
            }
        } else {
            log.warning("\(why); re-reading the kernel's state as generation \(generation)")
            startSource()
        }
    }
}
