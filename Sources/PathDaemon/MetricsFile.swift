// SPDX-License-Identifier: Apache-2.0
import Dispatch
import ServiceSupport
import SystemCalls

/// The metrics as a file for node_exporter's textfile collector (`MetricsFile=`):
/// replaced atomically (`AtomicFile`: temporary file in the same directory, fsync,
/// rename), so a scrape reads the old file or the new one, never half of one.
///
/// Rewritten when something changed, at most once a second: the first change after a
/// quiet second is written at the end of the queue's turn (with every other change that
/// turn makes: a closed connection is one write, not one per part that saw it), later ones
/// wait for the second to end and are written together. The second is measured by the injected `Scheduler`, so tests
/// advance it instead of sleeping. On a clean stop the file is replaced by an empty
/// one: while pathd does not run its metrics are absent (unknown), never stale.
///
/// Threading: every method runs on `queue`. `@unchecked Sendable`: the scheduled write
/// captures `self` and runs on `queue` too.
final class MetricsFile: @unchecked Sendable {
    static let minimumInterval = Duration.seconds(1)

    let path: String
    private let queue: DispatchQueue
    private let scheduler: any Scheduler
    private let log: Logger
    /// The text to write now (the Prometheus 0.0.4 exposition).
    private let render: () -> [UInt8]
    /// A write happened less than `minimumInterval` ago.
    private var isCoolingDown = false
    /// Something changed during the cool-down.
    private var isDirty = false
    /// A write is queued for the end of this turn of the queue.
    private var isWriteQueued = false
    private var isStopped = false
    /// The last failure logged, so a failing directory logs once, not every second.
    private var lastError: Errno?
    /// How many times the file was written (for tests and the log).
    private(set) var writes = 0

    init(path: String, queue: DispatchQueue, scheduler: any Scheduler, log: Logger, render: @escaping () -> [UInt8]) {
        self.path = path
        self.queue = queue
        self.scheduler = scheduler
        self.log = log
        self.render = render
    }

    /// Something the metrics show changed: write at the end of this turn of the queue, or
    /// once the second is over.
    func changed() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isStopped, !isWriteQueued else { return }
        if isCoolingDown {
            isDirty = true
            return
        }
        isWriteQueued = true
        queue.async { [weak self] in
            guard let self else { return }
            isWriteQueued = false
            if !isStopped { write() }
        }
    }

    /// Replaces the file with an empty one and writes no more.
    func stop() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isStopped else { return }
        isStopped = true
        replace(with: [])
    }

    private func write() {
        isDirty = false
        replace(with: render())
        isCoolingDown = true
        scheduler.schedule(after: Self.minimumInterval, on: queue) { [weak self] in
            guard let self else { return }
            isCoolingDown = false
            if isDirty && !isStopped { write() }
        }
    }

    private func replace(with bytes: [UInt8]) {
        do {
            try AtomicFile.replace(path, with: bytes, mode: 0o644)
            writes += 1
            if lastError != nil { log.notice("metrics: writing \(path) works again") }
            lastError = nil
        } catch {
            if error != lastError { log.warning("metrics: cannot write \(path): \(error)") }
            lastError = error
        }
    }
}
