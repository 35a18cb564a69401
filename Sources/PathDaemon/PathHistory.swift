import Dispatch
import PathModel
import ServiceSupport
import SystemCalls

/// The last `capacity` changes of the default path, with the daemon's start and stop
/// marks: in memory always, and in `history.jsonl` in the state directory when there is
/// one (`HistoryFile`). Without a usable directory it says so once and keeps going in
/// memory; a write that fails later does the same.
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
    private var file: HistoryFile?
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
            log.notice("history: no state directory (STATE_DIRECTORY is not set); the last \(capacity) path changes "
                + "are kept in memory only")
            return
        }
        do {
            let (file, loaded) = try HistoryFile.open(directory: directory, capacity: capacity)
            for problem in loaded.skipped { log.warning("history: \(file.path): \(problem)") }
            self.file = file
            ring = loaded.entries
        } catch {
            log.warning("history: \(error); the last \(capacity) path changes are kept in memory only")
        }
    }

    /// Whether the entries survive a restart.
    var isPersistent: Bool { file != nil }

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
        do {
            try file.append(entry, keeping: self.entries)
            scheduleSync()
        } catch {
            giveUpFile(error)
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
        do {
            try file.sync()
        } catch {
            log.warning("history: \(error)")
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
            guard let file else { return }
            do throws(HistoryFileError) {
                try file.sync()
            } catch {
                giveUpFile(error)
            }
        }
    }

    private func giveUpFile(_ error: HistoryFileError) {
        log.warning("history: \(error); from now on the path changes are kept in memory only")
        file?.close()
        file = nil
    }
}
