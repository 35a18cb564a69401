import Dispatch
import Glibc
import PathEngine
import PathModel
import PathProtocol
import SystemCalls

/// What a connection reports to its owner. Called on the state queue.
protocol ClientConnectionDelegate: AnyObject {
    func connection(_ connection: ClientConnection, received line: [UInt8])
    func connectionClosed(_ connection: ClientConnection)
}

/// One accepted client: its descriptor, its read and write sources, the framing of its
/// requests and the bounded queue of lines waiting for it.
///
/// Threading: every method runs on the state queue (the sources target it).
/// `@unchecked Sendable` because Dispatch's handlers are `@Sendable` closures that
/// capture `self`; the state queue is the only place `self` is touched.
final class ClientConnection: @unchecked Sendable {
    let id: UInt64
    let peerUserID: uid_t
    private let descriptor: Int32
    private let queue: DispatchQueue
    private let readSource: DispatchSourceRead
    private var writeSource: DispatchSourceWrite?
    private var isWriteSourceRunning = false
    /// Sources not yet through their cancel handler; the descriptor is closed at zero.
    private var liveSources = 1
    private var framer = LineFramer()
    private var outgoing = OutgoingQueue()
    private let maximumPendingBytes: Int
    private(set) var isClosed = false
    /// Reading paused because the client is not reading its replies.
    private var isReadPaused = false
    weak var delegate: ClientConnectionDelegate?
    /// How often this connection's sources woke the state queue. An idle client must
    /// add none: a write source left running on an empty queue, or a read source that
    /// fires without data, would spin (checked by IdleClientTests).
    private(set) var wakeups = 0
    private let log: Logger

    /// Subscriptions held on this connection, keyed by a per-connection number.
    var subscriptions: [Int: Subscription] = [:]
    var nextSubscriptionKey = 0

    init(id: UInt64, descriptor: Int32, peerUserID: uid_t, queue: DispatchQueue, maximumPendingBytes: Int, log: Logger) {
        self.id = id
        self.descriptor = descriptor
        self.peerUserID = peerUserID
        self.queue = queue
        self.maximumPendingBytes = maximumPendingBytes
        self.log = log
        readSource = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    }

    func start() {
        dispatchPrecondition(condition: .onQueue(queue))
        readSource.setEventHandler { [unowned self] in
            wakeups += 1
            readAvailable()
        }
        readSource.setCancelHandler { [self] in sourceCancelled() }
        readSource.resume()
    }

    /// Queues a line and writes what the socket takes now.
    func send(_ line: [UInt8], kind: OutgoingQueue.Kind = .other) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isClosed else { return }
        outgoing.append(line, kind: kind)
        flush()
        if !isClosed && outgoing.pendingBytes > maximumPendingBytes {
            log.warning("client \(id): not reading, \(outgoing.pendingBytes) bytes pending "
                + "(\(outgoing.supersededCount) path lines superseded); disconnected")
            close()
        }
    }

    /// Stops the sources; the descriptor closes when both cancel handlers have run.
    func close() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isClosed else { return }
        isClosed = true
        readSource.cancel()
        if isReadPaused { readSource.resume() }
        if let writeSource {
            writeSource.cancel()
            // A suspended source runs its cancel handler only once resumed.
            if !isWriteSourceRunning { writeSource.resume() }
        }
        delegate?.connectionClosed(self)
    }

    private func sourceCancelled() {
        liveSources -= 1
        if liveSources == 0 { _ = Glibc.close(descriptor) }
    }

    private func readAvailable() {
        guard !isClosed else { return }
        // On the stack: a wakeup costs no heap allocation and no zero-filling.
        withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 1) { readAvailable(into: $0) }
    }

    private func readAvailable(into buffer: UnsafeMutableRawBufferPointer) {
        // A bounded number of reads per wakeup keeps one chatty client from starving others.
        for _ in 0..<4 {
            let received = syscallResult { recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
            let count: Int
            switch received {
            case .success(let value):
                count = value
            case .failure(.wouldBlock):
                return
            case .failure(let error):
                log.debug("client \(id): receive failed: \(error)")
                close()
                return
            }
            if count == 0 {
                close()
                return
            }
            for output in framer.push(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                switch output {
                case .line(let line):
                    delegate?.connection(self, received: line)
                case .overflow:
                    send(ServerMessage.error(code: .lineTooLong,
                                             message: "request line longer than \(maximumRequestLineLength) bytes; closing",
                                             id: nil).encoded())
                    log.notice("client \(id): request line over \(maximumRequestLineLength) bytes; disconnected")
                    closeAfterFlush()
                    return
                }
                if isClosed { return }
            }
            // Replies are piling up unread: stop reading requests until they drain.
            if outgoing.pendingBytes > maximumPendingBytes / 2 {
                readSource.suspend()
                isReadPaused = true
                return
            }
        }
    }

    /// Sends what is queued, then closes (used after a framing error).
    private func closeAfterFlush() {
        flush()
        close()
    }

    private func flush() {
        guard !isClosed else { return }
        do {
            try outgoing.drain { bytes in
                // MSG_NOSIGNAL: a client that hung up must cost an EPIPE, not the daemon.
                let sent = syscallResult { Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if case .failure(.wouldBlock) = sent { return .success(0) }
                return sent
            }
        } catch {
            log.debug("client \(id): send failed: \(error)")
            close()
            return
        }
        if outgoing.isEmpty {
            if isWriteSourceRunning, let writeSource {
                writeSource.suspend()
                isWriteSourceRunning = false
            }
            if isReadPaused {
                isReadPaused = false
                readSource.resume()
            }
        } else if !isWriteSourceRunning {
            let source = writeSource ?? makeWriteSource()
            source.resume()
            isWriteSourceRunning = true
        }
    }

    private func makeWriteSource() -> DispatchSourceWrite {
        let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [unowned self] in
            wakeups += 1
            flush()
        }
        source.setCancelHandler { [self] in sourceCancelled() }
        liveSources += 1
        writeSource = source
        return source
    }
}

/// One subscription of a connection: the criteria it asked about and the id it gave.
struct Subscription {
    var id: JSONValue?
    var criteria: PathModel.Criteria
    /// `id` as its path lines carry it (`EncodedPathLine.idMember`), encoded once.
    var idMember: [UInt8]
}
