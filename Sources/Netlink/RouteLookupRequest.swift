// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// "Which route would the kernel take to `destination`?" — an RTM_GETROUTE built by
/// hand, as `ip route get` sends it. No packet is sent. RTM_F_LOOKUP_TABLE makes the
/// reply name the table that answered (libnl's `rtnl_route_lookup` always says 254,
/// docs/KERNEL.md, "Toolchain and kernel facts"), and the lookup applies policy rules like real traffic would.
struct RouteLookupRequest {
    var destination: IPAddress
    /// RTA_OIF: the lookup for traffic sent through this interface (a zone, or an
    /// interface's own lookup), as `ip route get … oif`; nil for the routes' own choice.
    var outputInterface: InterfaceIndex? = nil
    /// RTM_F_FIB_MATCH: answer with the whole routing table entry that matched (prefix,
    /// metric, scope, every hop: `RouteAnswer.entry`), as `ip route get fibmatch`. With
    /// `outputInterface` the kernel then refuses (IPv4: EHOSTUNREACH) where it would
    /// otherwise assume the destination on the link (docs/ARCHITECTURE.md, "Which
    /// interfaces can carry traffic").
    var matchesWholeEntry = false

    /// Requests per sendmsg(2): their replies (each well under 1 KiB once the kernel
    /// trims it, `netlink_trim`) must fit in the request socket's receive buffer
    /// (`receiveBufferBytes`) together.
    static let batchSize = 64
    /// What the request socket asks for with SO_RCVBUF (the kernel caps it at
    /// net.core.rmem_max, 208 KiB by default, and doubles it): room for a batch's replies.
    static let receiveBufferBytes: Int32 = 256 * 1024

    /// Sends the request on the blocking request socket and waits for its reply.
    /// Throws only when the socket itself fails; the kernel's answer, errors included,
    /// is the returned `RouteLookup`.
    func perform(on socket: NetlinkSocket, buffer: ReceiveBuffer) throws(NetlinkError) -> RouteLookup {
        try Self.perform([self], on: socket, buffer: buffer)[0]
    }

    /// Asks every request, `batchSize` to a sendmsg(2), and returns the answers in the
    /// requests' order: a change costs one round trip per batch, not one per lookup.
    static func perform(_ requests: [RouteLookupRequest], on socket: NetlinkSocket,
                        buffer: ReceiveBuffer) throws(NetlinkError) -> [RouteLookup] {
        var answers: [RouteLookup] = []
        answers.reserveCapacity(requests.count)
        var start = 0
        while start < requests.count {
            let batch = requests[start..<min(start + batchSize, requests.count)]
            var messages: [NetlinkMessage] = []
            for request in batch { messages.append(try request.message()) }
            var results = [RouteLookup?].unanswered(batch.count)
            try socket.exchange(batch: messages, buffer: buffer, operation(batch)) { position, reply in
                let request = batch[batch.startIndex + position]
                switch reply {
                case .error(let code):
                    results[position] = Self.lookup(forErrno: code)
                case .message(let header):
                    guard Int(header.pointee.nlmsg_type) == RTM_NEWROUTE else {
                        results[position] = .failed(errno: EBADMSG)
                        return
                    }
                    results[position] = Self.lookup(fromReply: header, isWholeEntry: request.matchesWholeEntry,
                                                    through: request.outputInterface) ?? .failed(errno: EBADMSG)
                }
            }
            for result in results {
                guard let result else {
                    throw NetlinkError(operation: operation(batch), code: .protocolViolation("a lookup had no answer"))
                }
                answers.append(result)
            }
            start += batch.count
        }
        return answers
    }

    private func message() throws(NetlinkError) -> NetlinkMessage {
        let message = try NetlinkMessage(type: Int32(RTM_GETROUTE), flags: Int32(NLM_F_REQUEST))
        var request = rtmsg()
        request.rtm_family = destination.family.linuxValue
        request.rtm_dst_len = UInt8(destination.family.addressBits)
        request.rtm_flags = UInt32(RTM_F_LOOKUP_TABLE) | (matchesWholeEntry ? UInt32(RTM_F_FIB_MATCH) : 0)
        try message.append(request)
        try message.putAttribute(Int32(RTA_DST.rawValue), bytes: destination.bytes)
        if let outputInterface {
            // A native-endian u32, as the kernel reads it (nla_get_u32).
            let index = UInt32(bitPattern: outputInterface.rawValue)
            try message.putAttribute(Int32(RTA_OIF.rawValue), bytes: withUnsafeBytes(of: index) { Array($0) })
        }
        return message
    }

    /// Names the lookups in errors; built only when one is thrown.
    private static func operation(_ batch: ArraySlice<RouteLookupRequest>) -> String {
        let first = batch.first.map(\.description) ?? "none"
        return "route lookup (RTM_GETROUTE \(first)\(batch.count > 1 ? " and \(batch.count - 1) more" : ""))"
    }

    private var description: String {
        "\(matchesWholeEntry ? "fibmatch " : "")\(destination)\(outputInterface.map { " oif \($0)" } ?? "")"
    }

    /// The kernel's error answers to RTM_GETROUTE, measured with `ip route get` in a
    /// namespace (Linux 6.x, IPv4 and IPv6 alike) and in NetlinkTests:
    /// no covering route → ENETUNREACH; `unreachable default` → EHOSTUNREACH;
    /// `prohibit default` → EACCES; `blackhole default` → EINVAL (an error, not a
    /// reply of type blackhole). Source: net/ipv4/fib_semantics.c `fib_props[]`,
    /// net/ipv6/route.c `ip6_rt_type_to_error`.
    static func lookup(forErrno value: Int32) -> RouteLookup {
        switch value {
        case ENETUNREACH: .noRoute
        case EHOSTUNREACH: .rejected(.unreachable)
        case EACCES: .rejected(.prohibit)
        case EINVAL: .rejected(.blackhole)
        default: .failed(errno: value)
        }
    }

    /// An RTM_NEWROUTE reply as a `RouteAnswer`; nil when malformed. For a whole-entry
    /// reply also the entry (`RouteEntry`), and of an ECMP entry's hops (RTA_MULTIPATH)
    /// the one through `interface`, the one asked about, else the first.
    static func lookup(fromReply header: UnsafeMutablePointer<nlmsghdr>, isWholeEntry: Bool = false,
                       through interface: InterfaceIndex? = nil) -> RouteLookup? {
        guard header.hasPayload(of: rtmsg.self) else { return nil }
        let route = header.payload(as: rtmsg.self)
        return Attributes.parse(header, headerSize: MemoryLayout<rtmsg>.size,
                                maxType: Int(__RTA_MAX.rawValue) - 1) { attributes in
            var answer = RouteAnswer(
                type: RouteType(rawValue: route.rtm_type),
                outputInterface: attributes.uint32(Int(RTA_OIF.rawValue)).map {
                    InterfaceIndex(rawValue: Int32(bitPattern: $0))
                },
                gateway: attributes.ipAddress(Int(RTA_GATEWAY.rawValue)),
                table: attributes.uint32(Int(RTA_TABLE.rawValue)) ?? UInt32(route.rtm_table),
                preferredSource: attributes.ipAddress(Int(RTA_PREFSRC.rawValue)),
                isLinkDown: route.rtm_flags & UInt32(RTNH_F_LINKDOWN) != 0)
            guard isWholeEntry else { return .route(answer) }
            answer.entry = RouteEntry(prefixLength: route.rtm_dst_len,
                                      metric: attributes.uint32(Int(RTA_PRIORITY.rawValue)) ?? 0,
                                      scope: AddressScope(rawValue: route.rtm_scope))
            if answer.outputInterface == nil, let multipath = attributes[Int(RTA_MULTIPATH.rawValue)] {
                let hops = Self.decodeMultipath(multipath)
                if let hop = hops.first(where: { $0.interface == interface }) ?? hops.first {
                    answer.outputInterface = hop.interface
                    answer.gateway = hop.gateway
                    answer.isLinkDown = hop.isLinkDown
                }
            }
            return .route(answer)
        }
    }

    /// One hop of an ECMP entry: its interface, its gateway unless on-link, RTNH_F_LINKDOWN.
    struct Hop: Equatable {
        var interface: InterfaceIndex
        var gateway: IPAddress?
        var isLinkDown: Bool
    }

    /// RTA_MULTIPATH: an array of `struct rtnexthop`, each followed by its own
    /// attributes (RTA_GATEWAY), each aligned to 4 bytes (RTNH_ALIGN, linux/rtnetlink.h).
    /// A hop the kernel marked RTNH_F_DEAD carries nothing and is left out, unless
    /// `includingDead` (what a route message can change is every hop's link).
    static func decodeMultipath(_ attribute: UnsafeMutablePointer<nlattr>, includingDead: Bool = false) -> [Hop] {
        guard let data = nla_data(attribute) else { return [] }
        let total = Int(nla_len(attribute))
        let headerSize = MemoryLayout<rtnexthop>.size
        var nexthops: [Hop] = []
        var offset = 0
        while offset + headerSize <= total {
            let hop = (data + offset).loadUnaligned(as: rtnexthop.self)
            let length = Int(hop.rtnh_len)
            guard length >= headerSize, offset + length <= total else { break }
            let gateway = Attributes.parse(attributesAt: data + offset + headerSize, length: length - headerSize,
                                           maxType: Int(__RTA_MAX.rawValue) - 1) {
                $0.ipAddress(Int(RTA_GATEWAY.rawValue))
            } ?? nil
            if includingDead || hop.rtnh_flags & UInt8(RTNH_F_DEAD) == 0 {
                nexthops.append(Hop(interface: InterfaceIndex(rawValue: hop.rtnh_ifindex), gateway: gateway,
                                    isLinkDown: hop.rtnh_flags & UInt8(RTNH_F_LINKDOWN) != 0))
            }
            offset += (length + 3) & ~3
        }
        return nexthops
    }
}
