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
/// Threading: `queue` only; its state is bound to it (`QueueBound`).
final class MetricsFile: Sendable {
    static let minimumInterval = Duration.seconds(1)

    let path: String
    private let queue: DispatchQueue
    private let scheduler: any Scheduler
    private let log: Logger
    private let state: QueueBound<State>

    private struct State {
        /// The text to write now (the Prometheus 0.0.4 exposition).
        let render: () -> [UInt8]
        /// A write happened less than `minimumInterval` ago.
        var isCoolingDown = false
        /// Something changed during the cool-down.
        var isDirty = false
        /// A write is queued for the end of this turn of the queue.
        var isWriteQueued = false
        var isStopped = false
        /// The last failure logged, so a failing directory logs once, not every second.
        var lastError: Errno?
        /// How many times the file was written (for tests and the log).
        var writes = 0
    }

    /// How many times the file was written (for tests and the log).
    var writes: Int { state.value.writes }

    init(path: String, queue: DispatchQueue, scheduler: any Scheduler, log: Logger,
         render: sending @escaping () -> [UInt8]) {
        self.path = path
        self.queue = queue
        self.scheduler = scheduler
        self.log = log
        state = QueueBound(sending: State(render: render), on: queue)
    }

    /// Something the metrics show changed: write at the end of this turn of the queue, or
    /// once the second is over.
    func changed() {
        guard !state.value.isStopped, !state.value.isWriteQueued else { return }
        if state.value.isCoolingDown {
            state.value.isDirty = true
            return
        }
        state.value.isWriteQueued = true
        queue.async { [weak self] in
            guard let self else { return }
            state.value.isWriteQueued = false
            if !state.value.isStopped { write() }
        }
    }

    /// Replaces the file with an empty one and writes no more.
    func stop() {
        guard !state.value.isStopped else { return }
        state.value.isStopped = true
        replace(with: [])
    }

    private func write() {
        state.value.isDirty = false
        replace(with: state.value.render())
        state.value.isCoolingDown = true
        scheduler.schedule(after: Self.minimumInterval, on: queue) { [weak self] in
            guard let self else { return }
            state.value.isCoolingDown = false
            if state.value.isDirty && !state.value.isStopped { write() }
        }
    }

    private func replace(with bytes: [UInt8]) {
        do {
            try AtomicFile.replace(path, with: bytes, mode: 0o644)
            state.value.writes += 1
            if state.value.lastError != nil { log.notice("metrics: writing \(path) works again") }
            state.value.lastError = nil
        } catch {
            if error != state.value.lastError { log.warning("metrics: cannot write \(path): \(error)") }
            state.value.lastError = error
        }
    }
}
