// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// The networks pathd has seen the default path's links on (`networks` request,
/// docs/PROTOCOL.md): at most `capacity`, the least recently seen forgotten first, kept
/// in `networks.jsonl` in the state directory so that they survive a restart. The file
/// holds the raw facts of each ID (the gateway's MAC), so it is written with mode 0600,
/// and the request is for privileged peers only. A network costs 0.6 to 1.2 KB here
/// (docs/PERFORMANCE.md, "Networks remembered"), so the whole list stays under 300 KiB.
///
/// The file is written whole (`AtomicFile`: a crash leaves the old file or the new one)
/// when a network is first seen, renamed, seen on another link, or leaves the path, at
/// most once a second; nothing is written while the path stays on one network. At start
/// a line that cannot be read is skipped with a warning and the file rewritten without
/// it. Without a state directory, or after a write error, the list stays in memory and
/// the log says so once; the next change tries again.
///
/// Threading: the state queue only (its owner's); its state is bound to it (`QueueBound`).
final class NetworkRegistry: Sendable {
    /// Networks remembered at most. A laptop meets a few dozen networks a year (home,
    /// work, hotels, trains, phones); the oldest go first.
    static let capacity = 256
    static let fileName = "networks.jsonl"
    /// A line longer than this is not one pathd wrote.
    static let maximumLineBytes = 4096
    /// The least time between two writes of the file.
    static let writeDelay = Duration.seconds(1)

    private let queue: DispatchQueue
    private let scheduler: any Scheduler
    private let log: Logger
    /// nil without a state directory.
    private let path: String?
    private let state: QueueBound<State>

    private struct State {
        var networks: [NetworkID: SeenNetwork] = [:]
        /// Why the list is not (all) in the file; nil while it is.
        var unwritten: String?
        var isWriteScheduled = false
        /// Whether something changed since the last write.
        var isDirty = false
    }

    /// Every network remembered, by ID.
    var networks: [NetworkID: SeenNetwork] { state.value.networks }

    init(directory: String?, queue: DispatchQueue, scheduler: any Scheduler, log: Logger) {
        self.queue = queue
        self.scheduler = scheduler
        self.log = log
        state = QueueBound(sending: State(), on: queue)
        guard let directory else {
            path = nil
            state.value.unwritten = "pathd has no state directory (STATE_DIRECTORY is not set)"
            return
        }
        let path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        self.path = path
        switch RegularFile.read(path, maximumBytes: (Self.capacity + 1) * Self.maximumLineBytes) {
        case .success(let bytes):
            let (loaded, skipped) = Self.parse(bytes)
            for problem in skipped { log.warning("networks: \(path): \(problem)") }
            // What was current when pathd stopped is no longer: the path says again.
            for var network in loaded {
                network.isCurrent = false
                state.value.networks[network.id] = network
            }
            evict()
            if !skipped.isEmpty || loaded.count != state.value.networks.count { write() }
        case .failure(let error) where error.isMissing:
            break
        case .failure(let error):
            state.value.unwritten = "cannot read \(path): \(error)"
            log.warning("networks: cannot read \(path): \(error); the networks seen are kept in memory only")
        }
    }

    /// Whether the list survives a restart, and if not why.
    var persistence: HistoryPersistence { state.value.unwritten.map { .inMemory(because: $0) } ?? .persistent }

    /// Every network, the current ones first, then the most recently seen; `now` (wall
    /// clock) is the last time the current ones were seen.
    func list(at now: Duration) -> [SeenNetwork] {
        state.value.networks.values.map { network in
            var shown = network
            if shown.isCurrent { shown.lastSeen = max(now, shown.lastSeen) }
            return shown
        }.sorted { ($0.isCurrent ? 1 : 0, $0.lastSeen, $1.id) > ($1.isCurrent ? 1 : 0, $1.lastSeen, $0.id) }
    }

    /// The networks the default path's links are on now (`seen`, each with its facts,
    /// its link and its domains), at `now` (wall clock): new ones are remembered, known
    /// ones updated, and those no longer on a link are marked as left at `now`.
    func update(current seen: [SeenNetwork], at now: Duration) {
        var networks = state.value.networks
        var changed = false
        let seenIDs = Set(seen.map(\.id))
        for (id, var network) in networks where network.isCurrent && !seenIDs.contains(id) {
            network.isCurrent = false
            network.lastSeen = now
            networks[id] = network
            changed = true
        }
        for sighting in seen {
            var network = networks[sighting.id] ?? SeenNetwork(id: sighting.id, facts: sighting.facts,
                                                               firstSeen: now, lastSeen: now)
            let before = network
            network.name = sighting.name
            network.facts = sighting.facts
            network.domains = sighting.domains
            for interface in sighting.interfaces.reversed() {
                network.interfaces.removeAll { $0 == interface }
                network.interfaces.insert(interface, at: 0)
            }
            network.interfaces = Array(network.interfaces.prefix(SeenNetwork.maximumInterfaces))
            network.isCurrent = true
            if network != before {
                network.lastSeen = now
                networks[sighting.id] = network
                changed = true
            }
        }
        guard changed else { return }
        state.value.networks = networks
        evict()
        state.value.isDirty = true
        scheduleWrite()
    }

    /// At the stop: the current networks were last seen `now`; the file is written at once.
    func close(at now: Duration) {
        for (id, var network) in state.value.networks where network.isCurrent {
            network.lastSeen = now
            state.value.networks[id] = network
            state.value.isDirty = true
        }
        if state.value.isDirty { write() }
    }

    /// Forgets the least recently seen networks past `capacity`, never a current one.
    private func evict() {
        let excess = state.value.networks.count - Self.capacity
        guard excess > 0 else { return }
        let oldest = state.value.networks.values.filter { !$0.isCurrent }
            .sorted { ($0.lastSeen, $0.id) < ($1.lastSeen, $1.id) }
        for network in oldest.prefix(excess) { state.value.networks[network.id] = nil }
    }

    private func scheduleWrite() {
        guard path != nil, !state.value.isWriteScheduled else { return }
        state.value.isWriteScheduled = true
        // The first change after a quiet spell is written at once; those within the
        // next second together at its end.
        queue.async { [weak self] in
            guard let self else { return }
            write()
            scheduler.schedule(after: Self.writeDelay, on: queue) { [weak self] in
                guard let self else { return }
                state.value.isWriteScheduled = false
                if state.value.isDirty { scheduleWrite() }
            }
        }
    }

    /// Writes the whole list; says once when that fails, and once when it works again.
    private func write() {
        guard let path else { return }
        state.value.isDirty = false
        let bytes = state.value.networks.values.sorted { ($0.lastSeen, $0.id) < ($1.lastSeen, $1.id) }
            .flatMap { $0.encodedLine() }
        do {
            try AtomicFile.replace(path, with: bytes, mode: 0o600, syncDirectory: true)
        } catch {
            let why = "cannot write \(path): \(error)"
            if state.value.unwritten == nil {
                log.warning("networks: \(why); the networks seen are kept in memory, and writing is tried again at "
                    + "the next change")
            }
            state.value.unwritten = why
            return
        }
        if state.value.unwritten != nil { log.notice("networks: writing \(path) works again") }
        state.value.unwritten = nil
    }

    /// The readable lines of a file, and why each other line was skipped.
    static func parse(_ bytes: [UInt8]) -> (networks: [SeenNetwork], skipped: [String]) {
        var networks: [SeenNetwork] = []
        var skipped: [String] = []
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated() where !line.isEmpty {
            guard line.count <= maximumLineBytes else {
                skipped.append("line \(number + 1): longer than \(maximumLineBytes) bytes; skipped")
                continue
            }
            do {
                networks.append(try SeenNetwork.decode(line: line))
            } catch {
                skipped.append("line \(number + 1): \(error.description); skipped")
            }
        }
        return (networks, skipped)
    }
}

/// A network as one default path shows it, without its facts: its name, its hints'
/// domains and the path's links on it, in the path's order (`PathService.recordNetworks`).
struct NetworkSighting: Hashable {
    var name: String?
    var domains: [String]
    var interfaces: [String] = []
}
