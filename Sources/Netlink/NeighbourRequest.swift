// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// A question or a request about one gateway's neighbour entry, on the request socket:
/// RTM_GETNEIGH for the entry as it is (no privilege needed; `ip neigh get`), or, with
/// `ResolveGateways=`, RTM_NEWNEIGH asking the kernel to confirm it as a first packet
/// would (needs CAP_NET_ADMIN). No packet is sent by pathd itself.
struct NeighbourRequest {
    enum Kind {
        /// RTM_GETNEIGH: the entry, or ENOENT.
        case read
        /// RTM_NEWNEIGH with NTF_USE (and NLM_F_CREATE): `neigh_event_send`, what the first
        /// packet to the address does; for an entry that is absent, failed or stale.
        case resolve
        /// RTM_NEWNEIGH setting NUD_PROBE: the kernel probes the address it holds by
        /// unicast; an answer confirms it, silence fails it, and a resolution then asks
        /// the link again. For a REACHABLE entry kept across a carrier loss, on which
        /// NTF_USE does nothing.
        case probe
    }

    var gateway: Neighbour.Key
    var kind: Kind

    /// What the kernel answered.
    enum Answer: Equatable {
        case entry(NeighbourMessage)
        /// ENOENT to a read: the kernel holds no entry.
        case none
        /// A resolution or probe was taken.
        case done
        /// The kernel refused, with this errno (EPERM without CAP_NET_ADMIN).
        case refused(Int32)
    }

    /// Asks every request, `RouteLookupRequest.batchSize` to a sendmsg(2) (their replies
    /// are as small as a lookup's), and returns the answers in order. Throws only when
    /// the socket fails. An entry read is dated by the time its batch was sent
    /// (`NeighbourDecoder`), never later than the kernel wrote it.
    static func perform(_ requests: [NeighbourRequest], on socket: NetlinkSocket, buffer: ReceiveBuffer,
                        clock: () -> MonotonicInstant) throws(NetlinkError) -> [Answer] {
        var answers: [Answer] = []
        var start = 0
        while start < requests.count {
            let batch = requests[start..<min(start + RouteLookupRequest.batchSize, requests.count)]
            var messages: [NetlinkMessage] = []
            for request in batch { messages.append(try request.message()) }
            var results = [Answer?].unanswered(batch.count)
            let sentAt = clock()
            try socket.exchange(batch: messages, buffer: buffer, acknowledged: true,
                                "neighbour request (\(batch.count))") { position, reply in
                switch reply {
                case .error(0):
                    results[position] = .done
                case .error(ENOENT) where batch[batch.startIndex + position].kind == .read:
                    results[position] = Answer.none
                case .error(let code):
                    results[position] = .refused(code)
                case .message(let header):
                    results[position] = NeighbourDecoder.decode(header, readAt: sentAt).map(Answer.entry)
                        ?? .refused(EBADMSG)
                }
            }
            for result in results {
                guard let result else {
                    throw NetlinkError(operation: "neighbour request",
                                       code: .protocolViolation("a neighbour request had no answer"))
                }
                answers.append(result)
            }
            start += batch.count
        }
        return answers
    }

    /// One reply each: a read's is the entry or an error; a resolution or probe asks for
    /// an ack (NLM_F_ACK), which is its reply (a read must not, or it would have two).
    private func message() throws(NetlinkError) -> NetlinkMessage {
        var flags = NLM_F_REQUEST
        var header = ndmsg()
        header.ndm_family = gateway.address.family.linuxValue
        header.ndm_ifindex = gateway.interface.rawValue
        switch kind {
        case .read:
            break
        case .resolve:
            flags |= NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE
            header.ndm_flags = UInt8(NTF_USE)
            header.ndm_state = UInt16(NUD_NONE)
        case .probe:
            flags |= NLM_F_ACK | NLM_F_REPLACE
            header.ndm_state = UInt16(NUD_PROBE)
        }
        let type = kind == .read ? RTM_GETNEIGH : RTM_NEWNEIGH
        let message = try NetlinkMessage(type: Int32(type), flags: Int32(flags))
        try message.append(header)
        try message.putAttribute(Int32(NDA_DST), bytes: gateway.address.bytes)
        return message
    }
}
