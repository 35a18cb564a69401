// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// The links whose own lookups (`NetlinkMonitor.lookups()`) the events since the last
/// batch could have changed: only those are asked again, so a change on one link costs
/// that link's lookups, not every link's. A lookup with RTA_OIF only ever matches routes
/// whose next hop leaves by that link (net/ipv4/fib_trie.c `fib_table_lookup` skips a
/// next hop of another device when `flowi4_oif` is set; IPv6's `rt6_score_route` fails
/// it under RT6_LOOKUP_F_IFACE), so a route through one link cannot change another's
/// answer. What can reach across links makes every answer stale: a rule, an address
/// (an IPv4 route dies with the address it names as its source, on whatever link it
/// leaves by: `fib_sync_down_addr`), a route through no device (a reject route, whose
/// IPv4 error no RTA_OIF escapes) or through a nexthop object (whose devices the message
/// need not name), and any change of a link that is another link's master (a VRF's
/// table serves its members' lookups). docs/ARCHITECTURE.md, "Which interfaces can
/// carry traffic".
enum StaleInterfaces: Equatable {
    /// In index order, each once. A list, not a set: a batch's routes name a link or
    /// two, and a set allocates its storage, asking the runtime for its metadata, for the
    /// first link of every route message, before the change's line.
    case some([InterfaceIndex])
    case all

    static var none: StaleInterfaces { .some([]) }

    mutating func insert(_ index: InterfaceIndex) {
        guard case .some(var indices) = self else { return }
        // Let go of this value's own reference first: `indices` then changes in place.
        self = .all
        Self.insert(index, into: &indices)
        self = .some(indices)
    }

    mutating func formUnion(_ other: StaleInterfaces) {
        switch (self, other) {
        case (.all, _): return
        case (_, .all): self = .all
        case (.some(var mine), .some(let theirs)):
            self = .all
            for index in theirs { Self.insert(index, into: &mine) }
            self = .some(mine)
        }
    }

    private static func insert(_ index: InterfaceIndex, into indices: inout [InterfaceIndex]) {
        let position = indices.firstIndex { $0 >= index } ?? indices.endIndex
        guard position == indices.endIndex || indices[position] != index else { return }
        indices.insert(index, at: position)
    }

    /// Of `interfaces`, those to ask again, in order.
    func filter(_ interfaces: [InterfaceIndex]) -> [InterfaceIndex] {
        switch self {
        case .all: interfaces
        case .some(let indices): interfaces.filter { indices.contains($0) }
        }
    }

    /// The links an RTM_NEWROUTE / RTM_DELROUTE goes through (RTA_OIF, every hop of
    /// RTA_MULTIPATH), or `.all` for a route through none, a reject type, a nexthop
    /// object (RTA_NH_ID) or a message that does not parse.
    static func of(route header: UnsafeMutablePointer<nlmsghdr>) -> StaleInterfaces {
        guard header.hasPayload(of: rtmsg.self) else { return .all }
        let route = header.payload(as: rtmsg.self)
        switch Int32(route.rtm_type) {
        case Int32(RTN_UNICAST), Int32(RTN_LOCAL), Int32(RTN_BROADCAST), Int32(RTN_ANYCAST), Int32(RTN_MULTICAST):
            break
        default:
            return .all
        }
        let devices = Attributes.parse(header, headerSize: MemoryLayout<rtmsg>.size,
                                       maxType: Int(__RTA_MAX.rawValue) - 1) { attributes -> StaleInterfaces? in
            guard attributes[Int(RTA_NH_ID.rawValue)] == nil else { return nil }
            var devices = StaleInterfaces.none
            if let index = attributes.uint32(Int(RTA_OIF.rawValue)) {
                devices.insert(InterfaceIndex(rawValue: Int32(bitPattern: index)))
            }
            if let multipath = attributes[Int(RTA_MULTIPATH.rawValue)] {
                for hop in RouteLookupRequest.decodeMultipath(multipath, includingDead: true) {
                    devices.insert(hop.interface)
                }
            }
            return devices
        }
        guard let devices = devices ?? nil, devices != .none else { return .all }
        return devices
    }
}
