import Dispatch

/// A dispatch source that is paused and resumed as work comes and goes, and cancelled
/// once. Dispatch runs a suspended source's cancel handler only after it is resumed,
/// and traps when a source is resumed more often than suspended: this keeps the count
/// in one place.
///
/// Threading: used on the queue the source targets only.
final class PausableSource {
    private let source: any DispatchSourceProtocol
    private(set) var isRunning = false
    private(set) var isCancelled = false

    /// Wraps a new (never resumed) source; it starts paused.
    init(_ source: any DispatchSourceProtocol) {
        self.source = source
    }

    func resume() {
        guard !isRunning, !isCancelled else { return }
        isRunning = true
        source.resume()
    }

    func pause() {
        guard isRunning, !isCancelled else { return }
        isRunning = false
        source.suspend()
    }

    /// Cancels, resuming first if paused so that the cancel handler runs.
    func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        source.cancel()
        if !isRunning {
            isRunning = true
            source.resume()
        }
    }
}
