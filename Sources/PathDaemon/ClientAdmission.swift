// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import KernelState
import PathConfiguration
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// Who is connected, and who may connect: the listener, the connections and their
/// budgets (`ConnectionBudget`); each connection is marked trusted or not by `PeerTrust`.
///
/// Threading: the state queue only (see `PathService`). Not `Sendable`: the acceptor's
/// and the connections' handlers run on it.
final class ClientAdmission {
    private let queue: DispatchQueue
    private let log: Logger
    private let scheduler: any Scheduler
    private let configuration: ServiceConfiguration
    private let records: ServiceRecords
    /// The first line of every connection.
    private let greeting: () -> [UInt8]
    /// The metrics count them (`ServiceRecords.changed`).
    private(set) var clients: [ClientID: ClientConnection] = [:] {
        didSet { records.changed() }
    }
    private var budget: ConnectionBudget
    private let trust = PeerTrust(daemonUserID: geteuid())
    private var nextClientID: UInt64 = 1
    private var listener: UnixListener?
    private var acceptor: ConnectionAcceptor?
    /// A return of free memory to the kernel is due (`scheduleMemoryReturn`).
    private let isMemoryReturnScheduled: QueueBound<Bool>

    /// Each request line of an admitted connection, in order.
    var onRequest: ((ClientConnection, [UInt8]) -> Void)?
    /// Called when an admitted connection closed, before the budget is released.
    var onClosed: ((ClientConnection) -> Void)?
    /// Called after a client was admitted or left (tests wait on it).
    var onClientsChanged: (() -> Void)?

    /// `limits`: the configuration's `[Daemon]` settings now (`configuration` is bound to
    /// the state queue, and a service is built before it runs there).
    init(queue: DispatchQueue, log: Logger, scheduler: any Scheduler, configuration: ServiceConfiguration,
         limits: DaemonSettings, records: ServiceRecords, greeting: @escaping () -> [UInt8]) {
        self.queue = queue
        self.log = log
        self.scheduler = scheduler
        self.configuration = configuration
        self.records = records
        self.greeting = greeting
        isMemoryReturnScheduled = QueueBound(sending: false, on: queue)
        budget = ConnectionBudget(maximumClients: limits.maximumClients, maximumPerUser: limits.maximumClientsPerUser,
                                  trust: trust)
    }

    // MARK: Listening

    /// Accepts connections on `listener` once `startAccepting` is called.
    func listen(on listener: UnixListener) {
        self.listener = listener
    }

    var isListening: Bool { listener != nil }

    func startAccepting() {
        guard acceptor == nil, let listener else { return }
        let acceptor = ConnectionAcceptor(listener: listener, queue: queue, log: log) { [weak self] descriptor in
            self?.admit(descriptor)
        }
        self.acceptor = acceptor
        acceptor.start()
    }

    /// Stops listening (removing the socket file it bound), sends `goodbye` to every
    /// client and closes them.
    func stop(goodbye: [UInt8]) {
        if let acceptor {
            acceptor.stop()
        } else {
            listener?.close()
        }
        acceptor = nil
        listener = nil
        for client in Array(clients.values) {
            client.send(goodbye, kind: .push)
            client.close(.shuttingDown)
        }
    }

    /// Applies the configuration's limits to connections made from now on.
    func applyLimits() {
        budget.maximumClients = configuration.current.daemon.maximumClients
        budget.maximumPerUser = configuration.current.daemon.maximumClientsPerUser
    }

    // MARK: Connections

    private func admit(_ descriptor: FileDescriptor) {
        let id = ClientID(rawValue: nextClientID)
        nextClientID += 1
        let userID: UInt32
        do {
            userID = try descriptor.peerCredentials().userID
        } catch {
            log.debug("client \(id): SO_PEERCRED failed: \(error)")
            userID = UInt32.max
        }
        let limits = ClientConnection.Limits(queueLimitBytes: configuration.current.daemon.clientQueueLimitBytes)
        let connection = ClientConnection(id: id, descriptor: descriptor, userID: userID,
                                          isTrusted: trust.trusts(userID), queue: queue, limits: limits, log: log)
        connection.start()
        if let refusal = budget.refusal(for: connection.userID) {
            log.warning("client \(id) (uid \(connection.userID)) refused: \(refusal)")
            connection.send(ServerMessage.error(code: .tooManyClients, message: refusal, id: nil).encoded())
            connection.closeAfterFlush(.refused)
            records.recordDisconnect(.refused)
            return
        }
        budget.admit(connection.userID)
        clients[id] = connection
        connection.onRequest = { [weak self] connection, line in self?.onRequest?(connection, line) }
        connection.onClose = { [weak self] connection, reason in self?.closed(connection, reason: reason) }
        connection.send(greeting())
        onClientsChanged?()
    }

    private func closed(_ connection: ClientConnection, reason: ClientConnection.CloseReason) {
        onClosed?(connection)
        if clients.removeValue(forKey: connection.id) != nil { budget.release(connection.userID) }
        acceptor?.connectionClosed()
        records.recordDisconnect(reason)
        onClientsChanged?()
        scheduleMemoryReturn()
    }

    /// What a closed connection held (its queue, its subscriptions, the buffers of its
    /// requests) is free, but glibc keeps free memory in its heap: RSS would stay at the
    /// peak of the busiest moment. A second after a connection closed (once, however many
    /// close meanwhile) the free pages go back to the kernel (docs/PERFORMANCE.md, memory).
    private func scheduleMemoryReturn() {
        guard !isMemoryReturnScheduled.value else { return }
        isMemoryReturnScheduled.value = true
        scheduler.schedule(after: .seconds(1), on: queue) { [isMemoryReturnScheduled] in
            isMemoryReturnScheduled.value = false
            Memory.returnFreePages()
        }
    }
}
