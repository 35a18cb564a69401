// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// The last `capacity` changes of the default path, with the daemon's start and stop
/// marks: in memory always, and in `history.jsonl` in the state directory when there is
/// one (`HistoryFile`). Without a directory it says so once and keeps going in memory.
/// A file that can be read but not written (a read-only or full file system) is loaded,
/// and writing is tried again at each change and at the stop: when it works again the
/// file is rewritten whole with what was kept in memory meanwhile.
///
/// Threading: `queue` only (the service's state queue); its state is bound to it (`QueueBound`).
final class PathHistory: Sendable {
    let capacity: Int
    private let queue: DispatchQueue
    private let scheduler: any Scheduler
    private let log: Logger
    private let state: QueueBound<State>

    private struct State {
        /// The newest entries, oldest first; `start` is where the oldest is once it wrapped.
        var ring: [HistoryEntry] = []
        var start = 0
        /// nil without a state directory, or when the file could not be read (it is then
        /// never written, so that nothing in it is lost).
        var file: HistoryFile?
        /// Why the entries are not (all) in the file; nil while they are.
        var unwritten: String?
        /// A flush is scheduled (at most one a second).
        var isSyncScheduled = false

        var entries: [HistoryEntry] { Array(ring[start...] + ring[..<start]) }
    }

    /// How long appended lines may wait for their fdatasync(2).
    static let syncDelay = Duration.seconds(1)

    /// Opens the file in `directory` (nil: memory only) and loads what it holds.
    init(capacity: Int, directory: String?, queue: DispatchQueue, scheduler: any Scheduler, log: Logger) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.queue = queue
        self.scheduler = scheduler
        self.log = log
        state = QueueBound(sending: State(), on: queue)
        guard let directory else {
            state.value.unwritten = "pathd has no state directory (STATE_DIRECTORY is not set)"
            log.notice("history: no state directory (STATE_DIRECTORY is not set); the last \(capacity) path changes "
                + "are kept in memory only")
            return
        }
        let file = HistoryFile(directory: directory, capacity: capacity)
        do {
            let loaded = try file.load()
            for problem in loaded.skipped { log.warning("history: \(file.path): \(problem)") }
            state.value.ring = loaded.entries
        } catch {
            state.value.unwritten = error.description
            log.warning("history: \(error); the last \(capacity) path changes are kept in memory only")
            return
        }
        state.value.file = file
        do {
            try file.resume(self.entries)
        } catch {
            stopWriting(error)
        }
    }

    /// Whether the entries survive a restart.
    var isPersistent: Bool { state.value.unwritten == nil }

    /// Whether the entries survive a restart, and if not why.
    var persistence: HistoryPersistence { state.value.unwritten.map { .inMemory(because: $0) } ?? .persistent }

    /// Every entry kept, oldest first.
    var entries: [HistoryEntry] { state.value.entries }

    var count: Int { state.value.ring.count }

    /// Records `entry`: in memory, then appended to the file.
    func record(_ entry: HistoryEntry) {
        if state.value.ring.count < capacity {
            state.value.ring.append(entry)
        } else {
            state.value.ring[state.value.start] = entry
            state.value.start = (state.value.start + 1) % capacity
        }
        guard let file = state.value.file else { return }
        if state.value.unwritten != nil {
            retry(file)
            return
        }
        do {
            try file.append(entry, keeping: self.entries)
            scheduleSync()
        } catch {
            stopWriting(error)
        }
    }

    /// The newest `limit` entries (all without one) whose wall-clock time is `since` or later.
    func entries(since: Duration?, limit: Int?) -> [HistoryEntry] {
        var selected = entries
        if let since { selected.removeAll { $0.time.wall < since } }
        if let limit { selected = Array(selected.suffix(limit)) }
        return selected
    }

    /// Flushes and closes the file (after the stop mark).
    func close() {
        guard let file = state.value.file else { return }
        if state.value.unwritten != nil {
            retry(file)
        } else {
            do {
                try file.sync()
            } catch {
                log.warning("history: \(error)")
            }
        }
        file.close()
        state.value.file = nil
    }

    private func scheduleSync() {
        guard !state.value.isSyncScheduled else { return }
        state.value.isSyncScheduled = true
        scheduler.schedule(after: Self.syncDelay, on: queue) { [weak self] in
            guard let self else { return }
            state.value.isSyncScheduled = false
            guard let file = state.value.file, state.value.unwritten == nil else { return }
            do throws(HistoryFileError) {
                try file.sync()
            } catch {
                stopWriting(error)
            }
        }
    }

    /// Says once that the file is not written; the next change tries again (`retry`).
    private func stopWriting(_ error: HistoryFileError) {
        state.value.unwritten = error.description
        log.warning("history: \(error); the path changes are kept in memory, and writing is tried again at the "
            + "next change")
    }

    /// Writes the file again (rewritten whole with every entry kept): quietly while it
    /// still fails, said once when it works.
    private func retry(_ file: HistoryFile) {
        do {
            try file.resume(self.entries)
        } catch {
            state.value.unwritten = error.description
            log.debug("history: still \(error)")
            return
        }
        state.value.unwritten = nil
        log.notice("history: writing \(file.path) works again; the \(count) entries kept in memory are in it")
    }
}
