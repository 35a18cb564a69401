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
    let scheduler: any Scheduler

    private enum Lifecycle { case idle, running, stopped }
    private var lifecycle = Lifecycle.idle
    /// Whether the tracker is started and not stopped.
    var isRunning: Bool { lifecycle == .running }
    /// The question about unconfirmed gateways that is scheduled, when it is due and its
    /// token (KernelStateTracker+Neighbours.swift); those there were at the last look.
    var neighbourRefresh: (due: ContinuousClock.Instant, token: Int)?
    var neighbourRefreshTokens = 0
    var unconfirmedBefore: Set<Neighbour.Key> = []

    /// The generation of `source`; batches from any other are stale.
    public private(set) var generation = Generation.first
    private var source: (any PathEventSource)?
    /// Whether `source` delivered its first, full-state batch.
    private var sourceHasState = false
    /// Sources that failed before their first batch since the last one that had one.
    private var failedStarts = 0
    public private(set) var snapshot = Snapshot()

    /// Changes the snapshot outside a batch (a timer's), and tells `onChange` if that
    /// changed anything.
    func updateSnapshot(_ change: (inout Snapshot) -> Void) {
        let before = snapshot
        change(&snapshot)
        if hasState && snapshot != before { onChange?(nil) }
    }

    /// Hands `work` the current source, if any (none while a failed one waits to be replaced).
    func askSource(_ work: (any PathEventSource) -> Void) {
        if let source { work(source) }
    }
    /// Whether a full-state batch of some generation has arrived (the first path exists).
    public private(set) var hasState = false
    /// Why the current generation was started, until its first batch is applied.
    private var pendingResync: String?
    /// The owner of the watched routes (it registers itself), whose destinations each
    /// source is told (`watchedDestinationsChanged`). Weak: the watcher holds the tracker.
    weak var routeWatcher: RouteWatcher?
    /// The timer that forgets what routers said when it expires (`expireRouterHints`):
    /// when it is due, and its token (a later, earlier-due timer replaces it).
    private var hintExpiry: (due: MonotonicInstant, token: UInt64)?
    private var hintExpiryTokens: UInt64 = 0

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

    /// Keeps a DHCP lease's facts for the link `index` (the daemon's `reportLease`);
    /// `onChange` is called when that changes the link's hints.
    public func recordLease(_ lease: DHCPLease, on index: InterfaceIndex) {
        dispatchPrecondition(condition: .onQueue(queue))
        changeHints { $0.recordLease(lease, on: index) }
    }

    /// Forgets the link's lease of `family` (it ended); whether there was one.
    @discardableResult
    public func endLease(of family: AddressFamily, on index: InterfaceIndex) -> Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        var ended = false
        changeHints { ended = $0.endLease(of: family, on: index) }
        return ended
    }

    /// Changes the snapshot's hints from outside the kernel's events; tells `onChange`
    /// when the hints the evaluator reads changed.
    private func changeHints(_ change: (inout Snapshot) -> Void) {
        let before = snapshot.hints
        change(&snapshot)
        if hasState && snapshot.hints != before { onChange?(nil) }
    }

    /// After a batch with router options read at `now` (the latest): the timer for the
    /// first of their lifetimes to end, unless one is due no later.
    private func scheduleHintExpiry(now: MonotonicInstant) {
        guard let next = snapshot.nextRouterHintExpiry else { return }
        if let scheduled = hintExpiry, scheduled.due <= next { return }
        hintExpiryTokens += 1
        let token = hintExpiryTokens
        hintExpiry = (next, token)
        scheduler.schedule(after: max(next.sinceBoot - now.sinceBoot, .zero), on: queue) { [weak self] in
            self?.routerHintsExpire(token)
        }
    }

    /// The timer: forgets what expired by its due time, and sets the next one. A lifetime
    /// renewed meanwhile (the router's next advertisement) expires nothing.
    private func routerHintsExpire(_ token: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running, let scheduled = hintExpiry, scheduled.token == token else { return }
        hintExpiry = nil
        changeHints { $0.expireRouterHints(through: scheduled.due) }
        scheduleHintExpiry(now: scheduled.due)
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
            reply(answers.first.map { $0.map(\.lookup) } ?? .failure(RouteLookupError("no answer")))
        }
    }

    /// `lookUpRoute` for several questions, asked together on the source's queue;
    /// `reply` gets one answer per question, in their order, on `queue`, each with when
    /// the source asked it (to give back as a later question's `known` answers).
    public func lookUpRoutes(_ questions: [RouteQuestion],
                             reply: @escaping @Sendable ([Result<AskedLookup, RouteLookupError>]) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running, let source else {
            let restarting = RouteLookupError("the network monitor is restarting; ask again")
            reply(questions.map { _ in .failure(restarting) })
            return
        }
        let asked = questions.map {
            RouteQuestion(destination: $0.destination.socketDestination, interface: $0.interface, known: $0.known)
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
        let epochsBefore = snapshot.carrierEpochs
        let removedEntries = batch.isFullState ? [] : snapshot.entriesRemoved(by: batch.events)
        if batch.isFullState {
            snapshot.replaceKernelState(with: batch.events, readAt: batch.readAt)
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
        let optionsReadAt = batch.events.compactMap { event -> MonotonicInstant? in
            if case .routerOption(let option) = event { option.receivedAt } else { nil }
        }.max()
        if let optionsReadAt { scheduleHintExpiry(now: optionsReadAt) }
        let resync = batch.isFullState ? pendingResync : nil
        if batch.isFullState { pendingResync = nil }
        onChange?(resync)
        followNeighbours(epochsBefore: epochsBefore, removedEntries: removedEntries)
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
