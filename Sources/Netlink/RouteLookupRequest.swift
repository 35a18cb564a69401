import CLinux
import PathModel

/// "Which route would the kernel take to `destination`?" — an RTM_GETROUTE built by
/// hand, as `ip route get` sends it. No packet is sent. RTM_F_LOOKUP_TABLE makes the
/// reply name the table that answered (libnl's `rtnl_route_lookup` always says 254,
/// docs/ARCHITECTURE.md, "Toolchain and kernel facts"), and the lookup applies policy rules like real traffic would.
struct RouteLookupRequest {
    var destination: IPAddress
    /// RTA_OIF: the lookup for traffic sent through this interface (a zone), as
    /// `ip route get … oif`; nil for the routes' own choice.
    var outputInterface: InterfaceIndex? = nil

    /// Sends the request on the blocking request socket and waits for its reply.
    /// Throws only when the socket itself fails; the kernel's answer, errors included,
    /// is the returned `RouteLookup`.
    func perform(on socket: NetlinkSocket, buffer: ReceiveBuffer) throws(NetlinkError) -> RouteLookup {
        let message = try NetlinkMessage(type: Int32(RTM_GETROUTE), flags: Int32(NLM_F_REQUEST))
        var request = rtmsg()
        request.rtm_family = destination.family.linuxValue
        request.rtm_dst_len = UInt8(destination.family.addressBits)
        request.rtm_flags = UInt32(RTM_F_LOOKUP_TABLE)
        try message.append(request)
        try message.putAttribute(Int32(RTA_DST.rawValue), bytes: destination.bytes)
        if let outputInterface {
            // A native-endian u32, as the kernel reads it (nla_get_u32).
            let index = UInt32(bitPattern: outputInterface.rawValue)
            try message.putAttribute(Int32(RTA_OIF.rawValue), bytes: withUnsafeBytes(of: index) { Array($0) })
        }
        var result: RouteLookup?
        try socket.exchange(message, buffer: buffer, operation) { reply in
            switch reply {
            case .error(let code):
                result = Self.lookup(forErrno: code)
            case .message(let header):
                guard Int(header.pointee.nlmsg_type) == RTM_NEWROUTE else { return true }
                result = Self.lookup(fromReply: header) ?? .failed(errno: EBADMSG)
            }
            return false
        }
        guard let result else {
            throw NetlinkError(operation: operation, code: .protocolViolation("NLMSG_DONE without an answer"))
        }
        return result
    }

    /// Names the lookup in errors; built only when one is thrown.
    private var operation: String {
        "route lookup (RTM_GETROUTE \(destination)\(outputInterface.map { " oif \($0)" } ?? ""))"
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

    /// An RTM_NEWROUTE reply as a `RouteAnswer`; nil when malformed.
    static func lookup(fromReply header: UnsafeMutablePointer<nlmsghdr>) -> RouteLookup? {
        guard header.hasPayload(of: rtmsg.self) else { return nil }
        let route = header.payload(as: rtmsg.self)
        return Attributes.parse(header, headerSize: MemoryLayout<rtmsg>.size,
                                maxType: Int(__RTA_MAX.rawValue) - 1) { attributes in
            .route(RouteAnswer(
                type: RouteType(rawValue: route.rtm_type),
                outputInterface: attributes.uint32(Int(RTA_OIF.rawValue)).map {
                    InterfaceIndex(rawValue: Int32(bitPattern: $0))
                },
                gateway: attributes.ipAddress(Int(RTA_GATEWAY.rawValue)),
                table: attributes.uint32(Int(RTA_TABLE.rawValue)) ?? UInt32(route.rtm_table),
                preferredSource: attributes.ipAddress(Int(RTA_PREFSRC.rawValue)),
                isLinkDown: route.rtm_flags & UInt32(RTNH_F_LINKDOWN) != 0))
        }
    }
}
