// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// One accepted client, as transport only: bytes in, request lines out, lines queued
/// and written with backpressure. It knows nothing of subscriptions; `PathService`
/// answers the lines and decides what to send.
///
/// Fairness (docs/PROTOCOL.md, "Flow control and limits"):
/// - Requests are handled one at a time, and reading stops while replies wait: once
///   more than `pauseReplyBytes` are queued the next request waits until the client
///   reads. However a client pipelines, and however large one reply is, its replies
///   never count as "not reading".
/// - Each turn of the state queue handles at most `linesPerTurn` request lines of one
///   client, or fewer once they and the replies they made reach `bytesPerTurn`, then
///   yields to whatever else waits on the queue (other clients, a path change): round
///   robin. Blank lines are dropped as they are framed: they cost their bytes, one
///   comparison each, and nothing else.
/// - Only pushes the client did not ask for (path lines, resyncs) count against
///   `maximumPushedBytes`; past it the client is disconnected as not reading.
/// - End of input means "no more requests": what was received is answered, what is
///   queued is written, then the connection closes.
/// - A reply that needs the kernel (`route`) is deferred: `deferReply()` holds the
///   requests after it until `finishDeferredReply(_:)` queues it, so replies keep their
///   order while the state queue serves everyone else (docs/ARCHITECTURE.md, "The route
///   to one destination").
///
/// Threading: every method and field is used on `queue` only; the sources target it.
/// `@unchecked Sendable`: the sources' handlers capture `self` and run on `queue`.
final class ClientConnection: @unchecked Sendable {
    /// How much a client may have queued; both follow from `ClientQueueLimit=`.
    struct Limits {
        /// Replies queued past which no further request is handled until they drain.
        let pauseReplyBytes: Int
        /// Unrequested lines queued past which the client is disconnected.
        let maximumPushedBytes: Int

        init(queueLimitBytes: Int) {
            pauseReplyBytes = queueLimitBytes / 2
            maximumPushedBytes = queueLimitBytes
        }
    }

    /// Request lines handled per turn of the queue.
    private static let linesPerTurn = 16
    /// Bytes of request lines and of the replies they made per turn of the queue.
    private static let bytesPerTurn = 16 * 1024
    /// Bytes read from the socket per wakeup.
    private static let readSize = 16 * 1024

    /// Why a connection ended, for the log and the metrics.
    enum CloseReason: String, Sendable, CaseIterable {
        /// The client closed its end and everything queued was written.
        case endOfInput
        /// Reading or writing failed (the client vanished).
        case socketError
        /// Its unrequested lines passed the limit.
        case notReading
        /// A request line passed `maximumRequestLineLength`.
        case lineTooLong
        /// A budget refused the connection (too many clients).
        case refused
        /// The daemon stopped.
        case shuttingDown
    }

    let id: ClientID
    /// The peer's uid from SO_PEERCRED at accept, or `uid_t.max` when the kernel could
    /// not say (never taken for root).
    let userID: UInt32
    /// Whether the peer may make privileged requests (`PeerTrust`, decided at admission).
    let isTrusted: Bool
    private let descriptor: FileDescriptor
    private let queue: DispatchQueue
    private let limits: Limits
    private let log: Logger
    private let reader: PausableSource
    private var writer: PausableSource?
    /// Sources not yet through their cancel handler; the descriptor closes at zero.
    private var liveSources = 1
    private var framer = LineFramer()
    /// Complete request lines received and not yet handled, from `nextRequest` on.
    private var requests: [[UInt8]] = []
    private var nextRequest = 0
    private var outgoing = OutgoingQueue()
    /// Bytes ever queued for the client: what a turn's requests made is the difference.
    private var queuedBytes = 0
    /// The client sent end of input: no more reading.
    private var isInputFinished = false
    /// Waiting for the client to read replies before handling the next request.
    private var isWaitingForDrain = false
    /// The request handled last is answered later (`deferReply`); nothing after it is
    /// handled until then.
    private(set) var isAwaitingReply = false
    private var isProcessingScheduled = false
    /// Close once everything queued is written.
    private var closesWhenDrained: CloseReason?
    private(set) var isClosed = false
    /// How often this connection's sources woke the state queue. An idle client must
    /// add none: a write source left running on an empty queue, or a read source that
    /// fires without data, would spin (checked by IdleClientTests).
    private(set) var wakeups = 0

    /// Each request line, in order. Set before `start`.
    var onRequest: ((ClientConnection, [UInt8]) -> Void)?
    /// Called once, when the connection closed (by either side).
    var onClose: ((ClientConnection, CloseReason) -> Void)?

    init(id: ClientID, descriptor: FileDescriptor, userID: UInt32, isTrusted: Bool, queue: DispatchQueue,
         limits: Limits, log: Logger) {
        self.id = id
        self.descriptor = descriptor
        self.userID = userID
        self.isTrusted = isTrusted
        self.queue = queue
        self.limits = limits
        self.log = log
        reader = PausableSource(reading: descriptor, on: queue)
    }

    func start() {
        dispatchPrecondition(condition: .onQueue(queue))
        reader.setHandlers(onEvent: { [unowned self] in
            wakeups += 1
            readAvailable()
        }, onCancel: { [self] in sourceCancelled() })
        reader.resume()
    }

    /// Queues a line and writes what the socket takes now. A push that takes the
    /// client's unread pushes past the limit disconnects it.
    func send(_ line: [UInt8], kind: OutgoingQueue.Kind = .reply) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isClosed else { return }
        outgoing.append(line, kind: kind)
        queuedBytes += line.count
        flush()
        if !isClosed && outgoing.pushedBytes > limits.maximumPushedBytes {
            log.warning("client \(id) (uid \(userID)): not reading, \(outgoing.pushedBytes) bytes of path and "
                + "resync lines pending (\(outgoing.supersededCount) path lines superseded); disconnected")
            close(.notReading)
        }
    }

    /// Called while a request is handled: its reply comes later, through
    /// `finishDeferredReply`. At most one at a time: requests are handled in order.
    func deferReply() {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(!isAwaitingReply, "one deferred reply at a time")
        isAwaitingReply = true
    }

    /// Queues the deferred reply and goes on with the requests after it, in a turn of
    /// their own. A connection closed or closing meanwhile (the daemon stopping: its
    /// `shuttingDown` was the last line) drops it.
    /// `kind` is `.path` for the first line of a subscription.
    func finishDeferredReply(_ line: [UInt8], kind: OutgoingQueue.Kind = .reply) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard isAwaitingReply else { return }
        isAwaitingReply = false
        guard isOpen else { return }
        send(line, kind: kind)
        scheduleHandling()
    }

    /// Whether lines queued now will be sent: neither closed nor closing.
    var isOpen: Bool { !isClosed && closesWhenDrained == nil }

    /// Writes what is queued, then closes (after a refusal or a framing error).
    func closeAfterFlush(_ reason: CloseReason) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isClosed else { return }
        closesWhenDrained = reason
        reader.pause()
        flush()
    }

    /// Stops both sources; the descriptor closes when their cancel handlers have run.
    func close(_ reason: CloseReason) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isClosed else { return }
        isClosed = true
        reader.cancel()
        writer?.cancel()
        requests = []
        onClose?(self, reason)
    }

    // MARK: Reading

    private func sourceCancelled() {
        liveSources -= 1
        if liveSources == 0 { descriptor.close() }
    }

    private func readAvailable() {
        guard !isClosed, !isInputFinished else { return }
        // On the stack: a wakeup costs no heap allocation and no zero-filling.
        withUnsafeTemporaryAllocation(byteCount: Self.readSize, alignment: 1) { readOnce(into: $0) }
    }

    private func readOnce(into buffer: UnsafeMutableRawBufferPointer) {
        let received = syscallResult {
            recv(descriptor.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        }
        switch received {
        case .success(0):
            // End of input: the last line may lack its newline; answer it too.
            isInputFinished = true
            reader.pause()
            if let last = framer.finish(), !Request.isBlank(last) { requests.append(last) }
        case .success(let count):
            let framed = framer.push(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { line in
                if !Request.isBlank(line) { requests.append(line) }
            }
            if !framed {
                requests = []
                nextRequest = 0
                send(ServerMessage.error(code: .lineTooLong,
                                         message: "request line longer than \(maximumRequestLineLength) bytes; closing",
                                         id: nil).encoded())
                log.notice("client \(id) (uid \(userID)): request line over \(maximumRequestLineLength) bytes; "
                           + "disconnected")
                closeAfterFlush(.lineTooLong)
                return
            }
        case .failure(.wouldBlock):
            return
        case .failure(let error):
            log.debug("client \(id): receive failed: \(error)")
            close(.socketError)
            return
        }
        // Read no more until what was read is handled.
        if nextRequest < requests.count { reader.pause() }
        handleRequests()
    }

    /// Hands request lines to `onRequest` within this turn's budget.
    private func handleRequests() {
        var lines = 0
        var bytes = 0
        let queuedBefore = queuedBytes
        while !isClosed && closesWhenDrained == nil && !isAwaitingReply && nextRequest < requests.count {
            if outgoing.pendingBytes > limits.pauseReplyBytes {
                isWaitingForDrain = true  // flush() goes on once the client read enough
                return
            }
            if lines >= Self.linesPerTurn || bytes + queuedBytes - queuedBefore >= Self.bytesPerTurn {
                scheduleHandling()  // yield: others' turns first
                return
            }
            let line = requests[nextRequest]
            requests[nextRequest] = []
            nextRequest += 1
            lines += 1
            bytes += line.count + 1
            onRequest?(self, line)
        }
        // Awaiting a reply: reading stays paused, and end of input waits for it too.
        guard !isClosed, closesWhenDrained == nil, !isAwaitingReply else { return }
        requests.removeAll(keepingCapacity: requests.capacity <= 256)
        nextRequest = 0
        if isInputFinished {
            closeAfterFlush(.endOfInput)
        } else {
            reader.resume()
        }
    }

    private func scheduleHandling() {
        guard !isProcessingScheduled else { return }
        isProcessingScheduled = true
        queue.async { [self] in
            isProcessingScheduled = false
            guard !isClosed, !isWaitingForDrain, !isAwaitingReply else { return }
            handleRequests()
        }
    }

    // MARK: Writing

    private func flush() {
        guard !isClosed else { return }
        do {
            try outgoing.drain { bytes in
                // MSG_NOSIGNAL: a client that hung up must cost an EPIPE, not the daemon.
                let sent = syscallResult {
                    Glibc.send(descriptor.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if case .failure(.wouldBlock) = sent { return .success(0) }
                return sent
            }
        } catch {
            log.debug("client \(id): send failed: \(error)")
            close(.socketError)
            return
        }
        if outgoing.isEmpty {
            writer?.pause()
            if let reason = closesWhenDrained {
                close(reason)
                return
            }
        } else {
            (writer ?? makeWriter()).resume()
        }
        if isWaitingForDrain && outgoing.pendingBytes <= limits.pauseReplyBytes {
            isWaitingForDrain = false
            // Not directly: flush may run inside a request's reply, within handleRequests.
            scheduleHandling()
        }
    }

    private func makeWriter() -> PausableSource {
        let pausable = PausableSource(writing: descriptor, on: queue)
        pausable.setHandlers(onEvent: { [unowned self] in
            wakeups += 1
            flush()
        }, onCancel: { [self] in sourceCancelled() })
        liveSources += 1
        writer = pausable
        return pausable
    }
}
