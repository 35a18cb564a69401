// SPDX-License-Identifier: Apache-2.0
import Dispatch
import SystemCalls

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

    /// A paused source for when `descriptor` has bytes to read (or a connection to accept).
    convenience init(reading descriptor: FileDescriptor, on queue: DispatchQueue) {
        self.init(DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue))
    }

    /// A paused source for when `descriptor` has room to write.
    convenience init(writing descriptor: FileDescriptor, on queue: DispatchQueue) {
        self.init(DispatchSource.makeWriteSource(fileDescriptor: descriptor.rawValue, queue: queue))
    }

    /// Sets what runs on each event and, once, after `cancel()`: before the first `resume()`.
    func setHandlers(onEvent: @escaping () -> Void, onCancel: @escaping () -> Void) {
        source.setEventHandler(handler: onEvent)
        source.setCancelHandler(handler: onCancel)
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
