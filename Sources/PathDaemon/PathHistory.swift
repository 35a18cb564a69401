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
/// Threading: every method runs on `queue` (the service's state queue).
/// `@unchecked Sendable`: the scheduled flush captures `self` and runs on `queue` too.
final class PathHistory: @unchecked Sendable {
    let capacity: Int
    private let queue: DispatchQueue
    private let scheduler: any Scheduler
    private let log: Logger
    /// The newest entries, oldest first; `start` is where the oldest is once it wrapped.
    private var ring: [HistoryEntry] = []
    private var start = 0
    /// nil without a state directory, or when the file could not be read (it is then
    /// never written, so that nothing in it is lost).
    private var file: HistoryFile?
    /// Why the entries are not (all) in the file; nil while they are.
    private var unwritten: String?
    /// A flush is scheduled (at most one a second).
    private var isSyncScheduled = false

    /// How long appended lines may wait for their fdatasync(2).
    static let syncDelay = Duration.seconds(1)

    /// Opens the file in `directory` (nil: memory only) and loads what it holds.
    init(capacity: Int, directory: String?, queue: DispatchQueue, scheduler: any Scheduler, log: Logger) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.queue = queue
        self.scheduler = scheduler
        self.log = log
        guard let directory else {
            unwritten = "pathd has no state directory (STATE_DIRECTORY is not set)"
            log.notice("history: no state directory (STATE_DIRECTORY is not set); the last \(capacity) path changes "
                + "are kept in memory only")
            return
        }
        let file = HistoryFile(directory: directory, capacity: capacity)
        do {
            let loaded = try file.load()
            for problem in loaded.skipped { log.warning("history: \(file.path): \(problem)") }
            ring = loaded.entries
        } catch {
            unwritten = error.description
            log.warning("history: \(error); the last \(capacity) path changes are kept in memory only")
            return
        }
        self.file = file
        do {
            try file.resume(self.entries)
        } catch {
            stopWriting(error)
        }
    }

    /// Whether the entries survive a restart.
    var isPersistent: Bool { unwritten == nil }

    /// Whether the entries survive a restart, and if not why.
    var persistence: HistoryPersistence { unwritten.map { .inMemory(because: $0) } ?? .persistent }

    /// Every entry kept, oldest first.
    var entries: [HistoryEntry] { Array(ring[start...] + ring[..<start]) }

    var count: Int { ring.count }

    /// Records `entry`: in memory, then appended to the file.
    func record(_ entry: HistoryEntry) {
        dispatchPrecondition(condition: .onQueue(queue))
        if ring.count < capacity {
            ring.append(entry)
        } else {
            ring[start] = entry
            start = (start + 1) % capacity
        }
        guard let file else { return }
        if unwritten != nil {
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
        dispatchPrecondition(condition: .onQueue(queue))
        guard let file else { return }
        if unwritten != nil {
            retry(file)
        } else {
            do {
                try file.sync()
            } catch {
                log.warning("history: \(error)")
            }
        }
        file.close()
        self.file = nil
    }

    private func scheduleSync() {
        guard !isSyncScheduled else { return }
        isSyncScheduled = true
        scheduler.schedule(after: Self.syncDelay, on: queue) { [weak self] in
            guard let self else { return }
            isSyncScheduled = false
            guard let file, unwritten == nil else { return }
            do throws(HistoryFileError) {
                try file.sync()
            } catch {
                stopWriting(error)
            }
        }
    }

    /// Says once that the file is not written; the next change tries again (`retry`).
    private func stopWriting(_ error: HistoryFileError) {
        unwritten = error.description
        log.warning("history: \(error); the path changes are kept in memory, and writing is tried again at the "
            + "next change")
    }

    /// Writes the file again (rewritten whole with every entry kept): quietly while it
    /// still fails, said once when it works.
    private func retry(_ file: HistoryFile) {
        do {
            try file.resume(self.entries)
        } catch {
            unwritten = error.description
            log.debug("history: still \(error)")
            return
        }
        unwritten = nil
        log.notice("history: writing \(file.path) works again; the \(ring.count) entries kept in memory are in it")
    }
}
