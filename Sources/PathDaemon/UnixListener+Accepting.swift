// SPDX-License-Identifier: Apache-2.0
import Dispatch
import ServiceSupport
import SystemCalls

/// The accept loop of a `UnixListener`: a read source on its descriptor that accepts
/// what is pending and hands each connection on. When the process runs out of
/// descriptors (EMFILE, ENFILE) it pauses until a connection closes: the pending
/// connection would otherwise wake it forever (the source is level-triggered).
///
/// Threading: `queue` only. Not `Sendable`: only its owner's queue-bound state reaches it.
final class ConnectionAcceptor {
    /// Connections accepted per wakeup before yielding the queue.
    static let acceptsPerWakeup = 64

    private let listener: UnixListener
    private let queue: DispatchQueue
    private let log: Logger
    private let onAccept: (FileDescriptor) -> Void
    private let source: PausableSource
    private var isPausedForDescriptors = false

    init(listener: UnixListener, queue: DispatchQueue, log: Logger, onAccept: @escaping (FileDescriptor) -> Void) {
        self.listener = listener
        self.queue = queue
        self.log = log
        self.onAccept = onAccept
        source = PausableSource(reading: listener.descriptor, on: queue)
    }

    func start() {
        // The descriptor outlives the source, as Dispatch requires: closed once it is cancelled.
        source.setHandlers(onEvent: { [unowned self] in acceptPending() }, onCancel: { [listener] in listener.close() })
        source.resume()
        log.info("listening on \(listener.path)")
    }

    /// Stops accepting: the socket file is removed at once, the descriptor once the
    /// source is cancelled.
    func stop() {
        listener.removeFile()
        source.cancel()
    }

    /// A connection closed: a descriptor is free again.
    func connectionClosed() {
        guard isPausedForDescriptors else { return }
        isPausedForDescriptors = false
        source.resume()
    }

    private func acceptPending() {
        for _ in 0..<Self.acceptsPerWakeup {
            do {
                onAccept(try listener.descriptor.acceptConnection())
            } catch .wouldBlock {
                return
            } catch where error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem {
                log.warning("cannot accept a client: \(error); pausing accept until a client disconnects")
                isPausedForDescriptors = true
                source.pause()
                return
            } catch {
                log.warning("accept failed: \(error)")
                return
            }
        }
    }
}
