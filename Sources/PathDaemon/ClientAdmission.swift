import Dispatch
import Glibc
import PathEngine
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// Who is connected, and who may connect: the listener, the connections, their budgets
/// (`ConnectionBudget`) and the trust rule for privileged requests.
///
/// Threading: the state queue only (see `PathService`). `@unchecked Sendable`: the
/// acceptor's handler and the scheduled memory return capture `self` and run on it.
final class ClientAdmission: @unchecked Sendable {
    private let queue: DispatchQueue
    private let log: Logger
    private let scheduler: any Scheduler
    private let configuration: ServiceConfiguration
    private let records: ServiceRecords
    /// The first line of every connection.
    private let greeting: () -> [UInt8]
    private(set) var clients: [ClientID: ClientConnection] = [:]
    private var budget: ConnectionBudget
    private var nextClientID: UInt64 = 1
    private var listener: UnixListener?
    private var acceptor: ConnectionAcceptor?
    /// A return of free memory to the kernel is due (`scheduleMemoryReturn`).
    private var isMemoryReturnScheduled = false

    /// Each request line of an admitted connection, in order.
    var onRequest: ((ClientConnection, [UInt8]) -> Void)?
    /// Called when an admitted connection closed, before the budget is released.
    var onClosed: ((ClientConnection) -> Void)?
    /// Called after a client was admitted or left (tests wait on it).
    var onClientsChanged: (() -> Void)?

    init(queue: DispatchQueue, log: Logger, scheduler: any Scheduler, configuration: ServiceConfiguration,
         records: ServiceRecords, greeting: @escaping () -> [UInt8]) {
        self.queue = queue
        self.log = log
        self.scheduler = scheduler
        self.configuration = configuration
        self.records = records
        self.greeting = greeting
        budget = ConnectionBudget(maximumClients: configuration.current.daemon.maximumClients,
                                  maximumPerUser: configuration.current.daemon.maximumClientsPerUser,
                                  daemonUserID: geteuid())
    }

    // MARK: Trust

    /// Only root and the daemon's own user may make the requests that change what every
    /// client is told: `reload` (it re-reads files the requester may not control) and
    /// `reportConnectivity` (pathd-probe runs as pathd's user, pathd-probe.service's
    /// `User=pathd`). Not a separate probe uid: pathd.service's `PrivateUsers=yes` maps
    /// every other user to nobody, so SO_PEERCRED could not tell one apart. An unknown
    /// peer (`uid_t.max`, SO_PEERCRED failed) may not. The budgets' headroom is for the
    /// same users (`ConnectionBudget.isPrivileged`).
    static func isTrusted(peerUserID: uid_t, daemonUserID: uid_t) -> Bool {
        peerUserID != uid_t.max && (peerUserID == 0 || peerUserID == daemonUserID)
    }

    /// Whether `connection`'s peer may make a privileged request.
    func isTrusted(_ connection: ClientConnection) -> Bool {
        budget.isPrivileged(connection.userID)
    }

    // MARK: Listening

    /// Accepts connections on `listener` once `startAccepting` is called.
    func listen(on listener: UnixListener) {
        self.listener = listener
    }

    var isListening: Bool { listener != nil }

    func startAccepting() {
        guard acceptor == nil, let listener else { return }
        let acceptor = ConnectionAcceptor(listener: listener, queue: queue, log: log) { [unowned self] descriptor in
            admit(descriptor)
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
        dispatchPrecondition(condition: .onQueue(queue))
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
        let connection = ClientConnection(id: id, descriptor: descriptor, userID: userID, queue: queue,
                                          limits: limits, log: log)
        connection.start()
        if let refusal = budget.refusal(for: connection.userID) {
            log.warning("client \(id) (uid \(connection.userID)) refused: \(refusal)")
            connection.send(ServerMessage.error(code: .tooManyClients, message: refusal, id: nil).encoded())
            connection.closeAfterFlush(.refused)
            records.recordDisconnect(.refused)
            records.changed()
            return
        }
        budget.admit(connection.userID)
        clients[id] = connection
        connection.onRequest = { [unowned self] connection, line in onRequest?(connection, line) }
        connection.onClose = { [unowned self] connection, reason in closed(connection, reason: reason) }
        connection.send(greeting())
        onClientsChanged?()
        records.changed()
    }

    private func closed(_ connection: ClientConnection, reason: ClientConnection.CloseReason) {
        dispatchPrecondition(condition: .onQueue(queue))
        onClosed?(connection)
        if clients.removeValue(forKey: connection.id) != nil { budget.release(connection.userID) }
        acceptor?.connectionClosed()
        records.recordDisconnect(reason)
        onClientsChanged?()
        records.changed()
        scheduleMemoryReturn()
    }

    /// What a closed connection held (its queue, its subscriptions, the buffers of its
    /// requests) is free, but glibc keeps free memory in its heap: RSS would stay at the
    /// peak of the busiest moment. A second after a connection closed (once, however many
    /// close meanwhile) the free pages go back to the kernel (docs/PERFORMANCE.md, memory).
    private func scheduleMemoryReturn() {
        guard !isMemoryReturnScheduled else { return }
        isMemoryReturnScheduled = true
        scheduler.schedule(after: .seconds(1), on: queue) { [weak self] in
            guard let self else { return }
            isMemoryReturnScheduled = false
            Memory.returnFreePages()
        }
    }
}
