// SPDX-License-Identifier: Apache-2.0
import CLinux

/// One libnl routing socket (`nl_socket_alloc` + `nl_connect(sk, NETLINK_ROUTE)`).
/// The one owner of the handle: `close()` frees it (and its file descriptor) once;
/// `deinit` closes a socket nobody closed, e.g. after `start()` failed halfway.
///
/// libnl sends the requests (it fills in port id and sequence numbers); receiving is a
/// plain `recv(2)` into a reused `ReceiveBuffer`, walked by hand, so a message costs no
/// allocation (libnl's `nl_recv` mallocs a buffer per call; docs/KERNEL.md, "Toolchain and kernel facts" measured
/// raw receive at about 3x the message rate of libnl's).
final class NetlinkSocket {
    /// `struct nl_sock *`; nil once closed.
    private var handle: OpaquePointer?
    /// The socket's descriptor, for the dispatch source and socket options.
    let fileDescriptor: Int32

    /// - Parameter role: named in errors ("event socket", "request socket").
    init(role: String) throws(NetlinkError) {
        guard let sock = nl_socket_alloc() else {
            throw NetlinkError(operation: "nl_socket_alloc (\(role))", code: .libnl(NLE_NOMEM))
        }
        // pathd checks sequence numbers itself (requests) or has none (multicast events),
        // and never asks for acks.
        nl_socket_disable_seq_check(sock)
        nl_socket_disable_auto_ack(sock)
        let connected = NetlinkStatus(libnl: nl_connect(sock, NETLINK_ROUTE))
        if case .ok = connected {} else {
            nl_socket_free(sock)
            _ = try connected.get("nl_connect(NETLINK_ROUTE) (\(role))")
        }
        handle = sock
        fileDescriptor = nl_socket_get_fd(sock)
    }

    deinit { close() }

    /// Frees the libnl socket, which closes the descriptor. Idempotent.
    func close() {
        guard let sock = handle else { return }
        handle = nil
        nl_socket_free(sock)
    }

    /// Joins one multicast group (`nl_socket_add_membership`; the variadic plural is
    /// not imported into Swift).
    func addMembership(_ group: rtnetlink_groups) throws(NetlinkError) {
        guard let sock = handle else { throw closedError("add membership") }
        _ = try NetlinkStatus(libnl: nl_socket_add_membership(sock, Int32(group.rawValue)))
            .get("nl_socket_add_membership(group \(group.rawValue))")
    }

    func setNonBlocking() throws(NetlinkError) {
        guard let sock = handle else { throw closedError("set non-blocking") }
        _ = try NetlinkStatus(libnl: nl_socket_set_nonblocking(sock)).get("nl_socket_set_nonblocking")
    }

    /// libnl's own receive buffer size; pathd receives into `ReceiveBuffer` instead,
    /// but keep libnl consistent should anything in it ever receive on this socket.
    func setLibnlMessageBufferSize(_ bytes: Int) throws(NetlinkError) {
        guard let sock = handle else { throw closedError("set message buffer size") }
        _ = try NetlinkStatus(libnl: nl_socket_set_msg_buf_size(sock, bytes)).get("nl_socket_set_msg_buf_size")
    }

    /// Sets a socket option of level SOL_SOCKET to an int value (setsockopt(2)). The
    /// caller names the option in the error, if it turns the status into one.
    func setOption(_ name: Int32, _ value: Int32) -> NetlinkStatus {
        var value = value
        return NetlinkStatus {
            setsockopt(fileDescriptor, SOL_SOCKET, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Reads a socket option of level SOL_SOCKET as an int (getsockopt(2)).
    func option(_ name: Int32, _ what: String) throws(NetlinkError) -> Int {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try NetlinkStatus { getsockopt(fileDescriptor, SOL_SOCKET, name, &value, &length) }
            .get("getsockopt(\(what))")
        return Int(value)
    }

    /// Attaches a classic BPF program that the kernel runs on every datagram before
    /// queueing it (SO_ATTACH_FILTER, socket(7); needs no privilege). The kernel copies
    /// the program, so `program` need not outlive the call.
    func attachFilter(_ program: [sock_filter]) -> NetlinkStatus {
        var instructions = program
        return instructions.withUnsafeMutableBufferPointer { buffer in
            var description = sock_fprog(len: UInt16(buffer.count), filter: buffer.baseAddress)
            return NetlinkStatus {
                setsockopt(fileDescriptor, SOL_SOCKET, SO_ATTACH_FILTER, &description,
                           socklen_t(MemoryLayout<sock_fprog>.size))
            }
        }
    }

    /// A receive timeout for the blocking request socket, so a kernel that never
    /// answers cannot wedge the state queue forever (SO_RCVTIMEO, socket(7)).
    func setReceiveTimeout(seconds: Int) throws(NetlinkError) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        _ = try NetlinkStatus {
            setsockopt(fileDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }.get("setsockopt(SO_RCVTIMEO)")
    }

    /// Sends a request built by libnl (`nl_send_auto` completes port id and sequence
    /// number) and returns the sequence number the reply will carry. `operation` names
    /// the request in an error and is built only then.
    func send(_ message: NetlinkMessage, _ operation: @autoclosure () -> String) throws(NetlinkError) -> UInt32 {
        guard let sock = handle else { throw closedError(operation()) }
        _ = try NetlinkStatus(libnl: nl_send_auto(sock, message.pointer)).get("send \(operation())")
        return message.header.pointee.nlmsg_seq
    }

    /// Sends a request on this (blocking) socket and hands each reply that carries its
    /// sequence number to `body`, receiving into `buffer`, until `body` returns false or
    /// NLMSG_DONE ends a multipart reply. Skipped: replies to an earlier request that
    /// timed out (told apart by their number) and acks (none are asked for). Throws when
    /// the socket fails, on a truncated NLMSG_ERROR, and whatever `body` throws.
    func exchange(_ message: NetlinkMessage, buffer: ReceiveBuffer, _ operation: @autoclosure () -> String,
                  _ body: (NetlinkReply) throws(NetlinkError) -> Bool) throws(NetlinkError) {
        let sequence = try send(message, operation())
        var finished = false
        while !finished {
            let length = try receive(into: buffer).get("receive \(operation())")
            try buffer.forEachMessage(length: length) { header throws(NetlinkError) in
                guard header.pointee.nlmsg_seq == sequence else { return true }
                switch Int32(header.pointee.nlmsg_type) {
                case Int32(NLMSG_DONE):
                    finished = true
                case Int32(NLMSG_ERROR):
                    let error = try Self.errno(of: header, operation())
                    if error == 0 { return true }  // an ack
                    finished = try !body(.error(error))
                default:
                    finished = try !body(.message(header))
                }
                return !finished
            }
        }
    }

    /// Sends several requests in one sendmsg(2) and hands each reply to `body` with the
    /// position of the request it answers, receiving into `buffer`, until every request
    /// had one reply (each request must be answered by exactly one message, as a lookup
    /// is: its RTM_NEWROUTE or its NLMSG_ERROR). The kernel handles the messages of one
    /// datagram in order (`netlink_rcv_skb`) and queues every reply before sendmsg
    /// returns, so the socket's receive buffer must hold a whole batch's replies: a reply
    /// that does not fit is dropped and the next receive fails with ENOBUFS, never waits.
    /// Skipped as in `exchange`: replies to an earlier request that timed out; and acks,
    /// unless `acknowledged` (the requests asked for one, NLM_F_ACK, and it is their
    /// reply: `.error(0)`).
    func exchange(batch messages: [NetlinkMessage], buffer: ReceiveBuffer, acknowledged: Bool = false,
                  _ operation: @autoclosure () -> String,
                  _ body: (Int, NetlinkReply) throws(NetlinkError) -> Void) throws(NetlinkError) {
        guard let sock = handle else { throw closedError(operation()) }
        guard !messages.isEmpty else { return }
        var bytes: [UInt8] = []
        for message in messages {
            nl_complete_msg(sock, message.pointer)  // port id and the next sequence number
            let header = message.header
            let length = Int(header.pointee.nlmsg_len)
            bytes += UnsafeRawBufferPointer(start: UnsafeRawPointer(header), count: length)
            bytes += repeatElement(0, count: (length + 3) & ~3 - length)  // NLMSG_ALIGN
        }
        let first = messages[0].header.pointee.nlmsg_seq
        _ = try NetlinkStatus(libnl: nl_sendto(sock, &bytes, bytes.count)).get("send \(operation())")
        var unanswered = messages.count
        while unanswered > 0 {
            // Every reply is queued before sendto returns: one recvmmsg(2) takes them all.
            let count = try receiveMany(into: buffer, waitingForOne: true).get("receive \(operation())")
            for slot in 0..<count {
                try buffer.forEachMessage(slot: slot) { header throws(NetlinkError) in
                    let position = Int(header.pointee.nlmsg_seq &- first)
                    guard position < messages.count else { return true }
                    if Int32(header.pointee.nlmsg_type) == Int32(NLMSG_ERROR) {
                        let error = try Self.errno(of: header, operation())
                        if error == 0 && !acknowledged { return true }  // an ack nobody asked for
                        try body(position, .error(error))
                    } else {
                        try body(position, .message(header))
                    }
                    unanswered -= 1
                    return true
                }
            }
        }
    }

    /// The (positive) errno an NLMSG_ERROR carries; 0 for an ack.
    private static func errno(of header: UnsafeMutablePointer<nlmsghdr>,
                              _ operation: @autoclosure () -> String) throws(NetlinkError) -> Int32 {
        guard header.hasPayload(of: nlmsgerr.self) else {
            throw NetlinkError(operation: operation(), code: .protocolViolation("truncated NLMSG_ERROR"))
        }
        return -header.payload(as: nlmsgerr.self).error
    }

    /// Receives up to `ReceiveBuffer.slotCount` datagrams in one recvmmsg(2), one a slot:
    /// `.ok(count)` (each slot's length in `buffer.lengths`), `.wouldBlock`, `.overrun` or
    /// `.failed`. `waitingForOne`: block for the first (a blocking socket, replies that
    /// are on their way), then take what is queued; else take only what is queued. An
    /// error met after some datagrams is reported by the next call, as recvmmsg(2) says:
    /// so fewer datagrams than slots does not mean the socket is drained, only the next
    /// call's EAGAIN does (the event socket's drain keeps reading one at a time for this:
    /// an overrun must be seen before the batch is delivered). A datagram longer than a
    /// slot is a failure (MSG_TRUNC), never silently cut.
    func receiveMany(into buffer: ReceiveBuffer, waitingForOne: Bool) -> NetlinkStatus {
        let flags = Int32(MSG_TRUNC) | (waitingForOne ? pathd_msg_waitforone : Int32(MSG_DONTWAIT))
        let status = NetlinkStatus {
            recvmmsg(fileDescriptor, buffer.prepareVector(), UInt32(ReceiveBuffer.slotCount), flags, nil)
        }
        guard case .ok(let count) = status else { return status }
        for slot in 0..<count where buffer.lengths[slot] > ReceiveBuffer.defaultSize
            || buffer.vector[slot].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0 {
            return .failed(.protocolViolation("netlink message of \(buffer.lengths[slot]) bytes exceeds the "
                + "\(ReceiveBuffer.defaultSize)-byte receive buffer"))
        }
        return status
    }

    /// Receives one datagram into `buffer` (EINTR retried by `syscallResult`); returns
    /// `.ok(bytes)`, `.wouldBlock`, `.overrun` or `.failed`. A datagram longer than the
    /// buffer is a failure (MSG_TRUNC makes recv report the real length), never silently cut.
    func receive(into buffer: ReceiveBuffer) -> NetlinkStatus {
        let status = NetlinkStatus { recv(fileDescriptor, buffer.storage.baseAddress, buffer.storage.count,
                                          Int32(MSG_TRUNC)) }
        guard case .ok(let length) = status, length > buffer.storage.count else { return status }
        let capacity = buffer.storage.count
        return .failed(.protocolViolation(
            "netlink message of \(length) bytes exceeds the \(capacity)-byte receive buffer"))
    }

    private func closedError(_ operation: String) -> NetlinkError {
        NetlinkError(operation: operation, code: .errno(EBADF))
    }
}

/// A reply to a request, as `NetlinkSocket.exchange` hands it over.
enum NetlinkReply {
    /// Any message of the request's sequence number but NLMSG_ERROR and NLMSG_DONE.
    case message(UnsafeMutablePointer<nlmsghdr>)
    /// An NLMSG_ERROR that is not an ack: the kernel's (positive) errno.
    case error(Int32)
}

/// A receive buffer allocated once and reused for every datagram: `slotCount` slots of
/// `defaultSize` bytes, the first of which `storage` is (a plain recv(2)), all of them
/// for recvmmsg(2). Pages are touched only as datagrams fill them.
final class ReceiveBuffer {
    /// 64 KiB: the kernel packs dump replies into skbs of at most 32 KiB, and one
    /// multicast event is one small skb.
    static let defaultSize = 64 * 1024
    /// Datagrams one recvmmsg(2) takes: a burst of events, or a batch's lookup replies,
    /// in one system call (on a wake-up from idle each call costs 10 to 15 µs,
    /// docs/PERFORMANCE.md, "One thread from the kernel's event to the line").
    static let slotCount = 8

    /// The first slot.
    let storage: UnsafeMutableRawBufferPointer
    private let slots: UnsafeMutableRawBufferPointer
    private let vectors: UnsafeMutableBufferPointer<iovec>
    let vector: UnsafeMutableBufferPointer<pathd_mmsghdr>

    init() {
        slots = .allocate(byteCount: Self.defaultSize * Self.slotCount, alignment: MemoryLayout<nlmsghdr>.alignment)
        storage = UnsafeMutableRawBufferPointer(rebasing: slots[0..<Self.defaultSize])
        vectors = .allocate(capacity: Self.slotCount)
        vector = .allocate(capacity: Self.slotCount)
        for slot in 0..<Self.slotCount {
            vectors[slot] = iovec(iov_base: slots.baseAddress! + slot * Self.defaultSize, iov_len: Self.defaultSize)
        }
    }

    deinit {
        slots.deallocate()
        vectors.deallocate()
        vector.deallocate()
    }

    /// The vector for recvmmsg(2), its outputs cleared.
    func prepareVector() -> UnsafeMutablePointer<pathd_mmsghdr> {
        for slot in 0..<Self.slotCount {
            var header = msghdr()
            header.msg_iov = vectors.baseAddress! + slot
            header.msg_iovlen = 1
            vector[slot] = pathd_mmsghdr(msg_hdr: header, msg_len: 0)
        }
        return vector.baseAddress!
    }

    /// What recvmmsg(2) received in each slot (with MSG_TRUNC: the datagram's whole length).
    var lengths: [Int] { (0..<Self.slotCount).map { Int(vector[$0].msg_len) } }

    /// `forEachMessage` over what recvmmsg(2) put in `slot`.
    func forEachMessage<Failure: Error>(slot: Int, _ body: (UnsafeMutablePointer<nlmsghdr>) throws(Failure) -> Bool)
        throws(Failure) {
        try forEachMessage(in: slots.baseAddress! + slot * Self.defaultSize, length: Int(vector[slot].msg_len), body)
    }

    /// Calls `body` for each complete message among the first `length` bytes, in order
    /// (NLMSG_OK / NLMSG_NEXT). Returns early when `body` returns false.
    func forEachMessage<Failure: Error>(length: Int,
                                        _ body: (UnsafeMutablePointer<nlmsghdr>) throws(Failure) -> Bool)
        throws(Failure) {
        guard let base = storage.baseAddress else { return }
        try forEachMessage(in: base, length: length, body)
    }

    private func forEachMessage<Failure: Error>(in base: UnsafeMutableRawPointer, length: Int,
                                                _ body: (UnsafeMutablePointer<nlmsghdr>) throws(Failure) -> Bool)
        throws(Failure) {
        var remaining = Int32(length)
        var header = base.assumingMemoryBound(to: nlmsghdr.self)
        while pathd_nlmsg_ok(header, remaining) != 0 {
            guard try body(header) else { return }
            header = pathd_nlmsg_next(header, &remaining)
        }
    }
}

/// One outgoing libnl message (`nlmsg_alloc_simple`); freed once in `deinit`.
final class NetlinkMessage {
    /// `struct nl_msg *`.
    let pointer: OpaquePointer

    /// Bytes a request can hold: each pathd sends is a header, a fixed struct and a few
    /// short attributes (a route lookup 56 at most). libnl's default is a page, zeroed at each
    /// allocation, and a change's lookups waited for it (docs/PERFORMANCE.md, "The line
    /// from a cold start"); an attribute that does not fit fails (NLE_NOMEM), never cuts.
    static let capacity = 256

    init(type: Int32, flags: Int32) throws(NetlinkError) {
        guard let message = nlmsg_alloc_size(Self.capacity) else {
            throw NetlinkError(operation: "nlmsg_alloc_size(\(Self.capacity))", code: .libnl(NLE_NOMEM))
        }
        // Port and sequence number are set when it is sent (`nl_complete_msg`).
        guard nlmsg_put(message, UInt32(NL_AUTO_PORT), UInt32(NL_AUTO_SEQ), type, 0, flags) != nil else {
            nlmsg_free(message)
            throw NetlinkError(operation: "nlmsg_put(\(type))", code: .libnl(NLE_NOMEM))
        }
        pointer = message
    }

    deinit { nlmsg_free(pointer) }

    var header: UnsafeMutablePointer<nlmsghdr> { nlmsg_hdr(pointer) }

    /// Appends a fixed header (`struct rtmsg`, `struct ifinfomsg`…) after the nlmsghdr.
    func append<Header: BitwiseCopyable>(_ value: Header) throws(NetlinkError) {
        var value = value
        let result = withUnsafeMutableBytes(of: &value) {
            nlmsg_append(pointer, $0.baseAddress, $0.count, Int32(NLMSG_ALIGNTO))
        }
        _ = try NetlinkStatus(libnl: result).get("nlmsg_append")
    }

    /// Appends one attribute (`nla_put`).
    func putAttribute(_ type: Int32, bytes: [UInt8]) throws(NetlinkError) {
        _ = try NetlinkStatus(libnl: nla_put(pointer, type, Int32(bytes.count), bytes)).get("nla_put(\(type))")
    }
}
