import CLinux
import PathModel

/// What one RTM_NEWROUTE / RTM_DELROUTE of a short-prefix route says.
enum RouteMessage: Equatable {
    case changed(TrackedRoute, replaces: Bool)
    case removed(TrackedRoute)
}

enum RouteDecoder {
    /// Decodes a short-prefix IPv4/IPv6 route; nil for anything else (longer prefixes,
    /// other families, cloned cache entries). The prefix length is checked first, from
    /// `struct rtmsg` alone, so a route of a million-route flood or dump costs a length
    /// check and one load: only prefixes of length 0 or 1 (default and split routes)
    /// are decoded further.
    static func decode(_ header: UnsafeMutablePointer<nlmsghdr>) -> RouteMessage? {
        guard header.hasPayload(of: rtmsg.self) else { return nil }
        let message = header.payload(as: rtmsg.self)
        guard message.rtm_dst_len <= TrackedRoute.maximumPrefixLength else { return nil }
        let type = Int(header.pointee.nlmsg_type)
        guard type == RTM_NEWROUTE || type == RTM_DELROUTE,
              let family = AddressFamily(linuxValue: message.rtm_family),
              message.rtm_flags & UInt32(RTM_F_CLONED) == 0 else { return nil }
        let route = Attributes.parse(header, headerSize: MemoryLayout<rtmsg>.size,
                                     maxType: Int(__RTA_MAX.rawValue) - 1) { attributes -> TrackedRoute? in
            let zero: IPAddress = family == .ipv4 ? .v4(0) : .v6(high: 0, low: 0)
            let destination = attributes.ipAddress(Int(RTA_DST.rawValue)) ?? zero
            guard destination.family == family else { return nil }
            var nexthops: [Nexthop] = []
            if let multipath = attributes[Int(RTA_MULTIPATH.rawValue)] {
                nexthops = decodeMultipath(multipath)
            } else if let oif = attributes.uint32(Int(RTA_OIF.rawValue)) {
                nexthops = [Nexthop(interface: InterfaceIndex(rawValue: Int32(bitPattern: oif)),
                                    gateway: attributes.ipAddress(Int(RTA_GATEWAY.rawValue)),
                                    isLinkDown: message.rtm_flags & UInt32(RTNH_F_LINKDOWN) != 0)]
            }
            return TrackedRoute(family: family,
                                table: attributes.uint32(Int(RTA_TABLE.rawValue)) ?? UInt32(message.rtm_table),
                                destination: destination, prefixLength: message.rtm_dst_len, tos: message.rtm_tos,
                                metric: attributes.uint32(Int(RTA_PRIORITY.rawValue)) ?? 0,
                                type: RouteType(rawValue: message.rtm_type), nexthops: nexthops,
                                scope: AddressScope(rawValue: message.rtm_scope),
                                preferredSource: attributes.ipAddress(Int(RTA_PREFSRC.rawValue)))
        } ?? nil
        guard let route else { return nil }
        if type == RTM_DELROUTE { return .removed(route) }
        return .changed(route, replaces: Int32(header.pointee.nlmsg_flags) & Int32(NLM_F_REPLACE) != 0)
    }

    /// RTA_MULTIPATH: an array of `struct rtnexthop`, each followed by its own
    /// attributes (RTA_GATEWAY), each aligned to 4 bytes (RTNH_ALIGN, linux/rtnetlink.h).
    static func decodeMultipath(_ attribute: UnsafeMutablePointer<nlattr>) -> [Nexthop] {
        guard let data = nla_data(attribute) else { return [] }
        let total = Int(nla_len(attribute))
        let headerSize = MemoryLayout<rtnexthop>.size
        var nexthops: [Nexthop] = []
        var offset = 0
        while offset + headerSize <= total {
            let hop = (data + offset).loadUnaligned(as: rtnexthop.self)
            let length = Int(hop.rtnh_len)
            guard length >= headerSize, offset + length <= total else { break }
            let gateway = Attributes.parse(attributesAt: data + offset + headerSize, length: length - headerSize,
                                           maxType: Int(__RTA_MAX.rawValue) - 1) {
                $0.ipAddress(Int(RTA_GATEWAY.rawValue))
            } ?? nil
            if hop.rtnh_flags & UInt8(RTNH_F_DEAD) == 0 {
                nexthops.append(Nexthop(interface: InterfaceIndex(rawValue: hop.rtnh_ifindex), gateway: gateway,
                                        isLinkDown: hop.rtnh_flags & UInt8(RTNH_F_LINKDOWN) != 0))
            }
            offset += (length + 3) & ~3
        }
        return nexthops
    }
}
