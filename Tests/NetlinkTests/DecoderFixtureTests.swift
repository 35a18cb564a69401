// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel
import Testing
@testable import Netlink

/// The decoders over messages built byte by byte (`MessageBytes`), as the kernel lays
/// them out: no socket, no namespace, no root. A change to a decoder is checked here in
/// milliseconds by any user.
@Suite("decoders, from byte fixtures")
struct DecoderFixtureTests {
    /// Runs `body` on a copy of `bytes` in 4-byte-aligned memory, as a receive buffer is.
    private func withMessage<Result>(_ bytes: [UInt8], _ body: (UnsafeMutablePointer<nlmsghdr>) -> Result) -> Result {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, MemoryLayout<nlmsghdr>.size),
                                                      alignment: 4)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: max(bytes.count, MemoryLayout<nlmsghdr>.size))
        bytes.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        return body(memory.assumingMemoryBound(to: nlmsghdr.self))
    }

    private typealias M = MessageBytes

    private static func string(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    private func link(type: Int = RTM_NEWLINK, family: UInt8 = UInt8(AF_UNSPEC), index: Int32 = 3,
                      attributes: [(UInt16, [UInt8])]) -> [UInt8] {
        var info = ifinfomsg()
        info.ifi_family = family
        info.ifi_type = 1  // ARPHRD_ETHER
        info.ifi_index = index
        info.ifi_flags = 0x1 | 0x40 | 0x10000  // up, running, lower up
        return M.message(type: type, body: M.bytes(of: info), attributes: attributes)
    }

    @Test("a link: name, flags, operstate, kind (nested IFLA_LINKINFO) and master")
    func linkWithEverything() {
        let kind = M.host(UInt16(4 + 5)) + M.host(UInt16(IFLA_INFO_KIND)) + Self.string("veth") + [0, 0, 0]
        let bytes = link(attributes: [(UInt16(IFLA_IFNAME), Self.string("eth0")), (UInt16(IFLA_OPERSTATE), [6]),
                                      (UInt16(IFLA_LINKINFO), kind), (UInt16(IFLA_MASTER), M.host(UInt32(7)))])
        let decoded = withMessage(bytes) { LinkDecoder.decode($0) }
        #expect(decoded == .changed(LinkAttributes(
            index: InterfaceIndex(rawValue: 3), name: "eth0", flags: [.up, .running, .lowerUp], operState: .up,
            hardwareType: .ether, kind: "veth", master: InterfaceIndex(rawValue: 7))))
    }

    @Test("a link without IFLA_OPERSTATE is unknown; without a name, or of family AF_INET6, it is ignored")
    func linkEdgeCases() {
        let bare = withMessage(link(attributes: [(UInt16(IFLA_IFNAME), Self.string("wg0"))])) { LinkDecoder.decode($0) }
        guard case .changed(let attributes) = bare else {
            Issue.record("expected a link, got \(String(describing: bare))")
            return
        }
        #expect(attributes.operState == .unknown && attributes.kind == nil && attributes.master == nil)
        #expect(withMessage(link(attributes: [(UInt16(IFLA_OPERSTATE), [6])])) { LinkDecoder.decode($0) } == nil)
        let inet6 = link(family: UInt8(AF_INET6), attributes: [(UInt16(IFLA_IFNAME), Self.string("eth0"))])
        #expect(withMessage(inet6) { LinkDecoder.decode($0) } == nil)
        #expect(withMessage(link(type: RTM_DELLINK, attributes: [])) { LinkDecoder.decode($0) }
                == .removed(InterfaceIndex(rawValue: 3)))
    }

    private func address(type: Int = RTM_NEWADDR, family: AddressFamily, prefix: UInt8, flags: UInt8 = 0x80,
                         scope: UInt8 = 0, attributes: [(UInt16, [UInt8])]) -> [UInt8] {
        var message = ifaddrmsg()
        message.ifa_family = family.linuxValue
        message.ifa_prefixlen = prefix
        message.ifa_flags = flags
        message.ifa_scope = scope
        message.ifa_index = 2
        return M.message(type: type, body: M.bytes(of: message), attributes: attributes)
    }

    @Test("an address: IFA_LOCAL wins over IFA_ADDRESS (point-to-point), IFA_FLAGS over ifa_flags")
    func addresses() {
        let local = IPAddress("10.8.0.2")!
        let peer = IPAddress("10.8.0.1")!
        let pointToPoint = address(family: .ipv4, prefix: 32, attributes: [
            (UInt16(IFA_ADDRESS), peer.bytes), (UInt16(IFA_LOCAL), local.bytes),
            (UInt16(IFA_FLAGS), M.host(UInt32(0x80 | 0x200))),
        ])
        #expect(withMessage(pointToPoint) { AddressDecoder.decode($0) } == .changed(InterfaceAddress(
            interface: InterfaceIndex(rawValue: 2), address: local, prefixLength: 32,
            flags: AddressFlags(rawValue: 0x80 | 0x200))))
        let optimistic = address(family: .ipv6, prefix: 64, flags: 0x04 | 0x40, scope: 0,
                                 attributes: [(UInt16(IFA_ADDRESS), IPAddress("2001:db8::5")!.bytes)])
        #expect(withMessage(optimistic) { AddressDecoder.decode($0) } == .changed(InterfaceAddress(
            interface: InterfaceIndex(rawValue: 2), address: IPAddress("2001:db8::5")!, prefixLength: 64,
            flags: [.optimistic, .tentative])))
        let removed = address(type: RTM_DELADDR, family: .ipv4, prefix: 24,
                              attributes: [(UInt16(IFA_ADDRESS), local.bytes)])
        #expect(withMessage(removed) { AddressDecoder.decode($0) }
                == .removed(InterfaceAddress.Key(interface: InterfaceIndex(rawValue: 2), address: local,
                                                 prefixLength: 24)))
        // An IPv6 address in an AF_INET message is not believed.
        let mismatched = address(family: .ipv4, prefix: 64,
                                 attributes: [(UInt16(IFA_ADDRESS), IPAddress("2001:db8::5")!.bytes)])
        #expect(withMessage(mismatched) { AddressDecoder.decode($0) } == nil)
    }

    @Test("a whole-entry reply of an ECMP entry: the asked interface's live hop, else the first live one")
    func multipath() {
        func hop(_ interface: Int32, _ gateway: String, flags: UInt8 = 0) -> [UInt8] {
            let attribute = M.host(UInt16(4 + 16)) + M.host(UInt16(RTA_GATEWAY.rawValue)) + IPAddress(gateway)!.bytes
            var header = rtnexthop()
            header.rtnh_len = UInt16(MemoryLayout<rtnexthop>.size + attribute.count)
            header.rtnh_flags = flags
            header.rtnh_ifindex = interface
            return M.bytes(of: header) + attribute
        }
        let hops = hop(2, "2001:db8::1") + hop(3, "2001:db8::2", flags: UInt8(RTNH_F_DEAD)) + hop(5, "2001:db8::3")
        let bytes = M.route(IPAddress("::")!, 0, attributes: [(M.table, M.host(UInt32(254))),
                                                               (M.priority, M.host(UInt32(600))),
                                                               (UInt16(RTA_MULTIPATH.rawValue), hops)])
        func answer(through index: Int32) -> RouteLookup? {
            withMessage(bytes) {
                RouteLookupRequest.lookup(fromReply: $0, isWholeEntry: true, through: InterfaceIndex(rawValue: index))
            }
        }
        let entry = RouteEntry(prefixLength: 0, metric: 600)
        #expect(answer(through: 5) == .route(RouteAnswer(type: .unicast, outputInterface: InterfaceIndex(rawValue: 5),
                                                         gateway: IPAddress("2001:db8::3"), entry: entry)))
        // The dead hop is no answer for its interface: the first live one stands.
        #expect(answer(through: 3) == .route(RouteAnswer(type: .unicast, outputInterface: InterfaceIndex(rawValue: 2),
                                                         gateway: IPAddress("2001:db8::1"), entry: entry)))
    }

    @Test("rules: wg-quick's fwmark rule and suppress_prefixlength rule; other selectors are noted")
    func rules() {
        func rule(_ attributes: [(UInt16, [UInt8])], action: UInt8 = UInt8(FR_ACT_TO_TBL),
                  flags: UInt32 = 0) -> [UInt8] {
            var header = fib_rule_hdr()
            header.family = AddressFamily.ipv4.linuxValue
            header.action = action
            header.flags = flags
            return M.message(type: RTM_NEWRULE, body: M.bytes(of: header), attributes: attributes)
        }
        let marked = rule([(UInt16(FRA_PRIORITY), M.host(UInt32(32764))), (UInt16(FRA_FWMARK), M.host(UInt32(51820))),
                           (UInt16(FRA_TABLE), M.host(UInt32(51820)))], flags: UInt32(FIB_RULE_INVERT))
        #expect(withMessage(marked) { RuleDecoder.decode($0) } == .added(RoutingRule(
            family: .ipv4, priority: 32764, action: .lookup(table: 51820), isInverted: true, firewallMark: 51820)))
        let suppress = rule([(UInt16(FRA_PRIORITY), M.host(UInt32(32765))), (UInt16(FRA_TABLE), M.host(UInt32(254))),
                             (UInt16(FRA_SUPPRESS_PREFIXLEN), M.host(UInt32(0)))])
        #expect(withMessage(suppress) { RuleDecoder.decode($0) } == .added(RoutingRule(
            family: .ipv4, priority: 32765, action: .lookup(table: 254), firewallMask: 0, suppressPrefixLength: 0)))
        let byInterface = rule([(UInt16(FRA_OIFNAME), Self.string("wg0")), (UInt16(FRA_TABLE), M.host(UInt32(7)))])
        guard case .added(let decoded)? = withMessage(byInterface, { RuleDecoder.decode($0) }) else {
            Issue.record("rule with FRA_OIFNAME not decoded")
            return
        }
        #expect(decoded.hasOtherSelectors)
        let blackhole = rule([], action: UInt8(FR_ACT_BLACKHOLE))
        guard case .added(let rejecting)? = withMessage(blackhole, { RuleDecoder.decode($0) }) else {
            Issue.record("blackhole rule not decoded")
            return
        }
        #expect(rejecting.action == .reject(.blackhole))
    }

    @Test("a lookup reply: type, output interface, gateway, the table that answered, preferred source, linkdown")
    func lookupReply() {
        var header = rtmsg()
        header.rtm_family = AddressFamily.ipv4.linuxValue
        header.rtm_type = UInt8(RTN_UNICAST)
        header.rtm_table = 254
        header.rtm_flags = UInt32(RTNH_F_LINKDOWN)
        let bytes = M.message(type: RTM_NEWROUTE, body: M.bytes(of: header), attributes: [
            (M.table, M.host(UInt32(51820))), (UInt16(RTA_OIF.rawValue), M.host(UInt32(9))),
            (UInt16(RTA_GATEWAY.rawValue), IPAddress("10.7.0.1")!.bytes),
            (UInt16(RTA_PREFSRC.rawValue), IPAddress("10.7.0.2")!.bytes),
        ])
        #expect(withMessage(bytes) { RouteLookupRequest.lookup(fromReply: $0) } == .route(RouteAnswer(
            type: .unicast, outputInterface: InterfaceIndex(rawValue: 9), gateway: IPAddress("10.7.0.1"), table: 51820,
            preferredSource: IPAddress("10.7.0.2"), isLinkDown: true)))
        #expect(RouteLookupRequest.lookup(forErrno: ENETUNREACH) == .noRoute)
        #expect(RouteLookupRequest.lookup(forErrno: EHOSTUNREACH) == .rejected(.unreachable))
    }

    @Test("a truncated message decodes to nothing, whatever its type")
    func truncated() {
        let full = link(attributes: [(UInt16(IFLA_IFNAME), Self.string("eth0"))])
        let cut = Array(full.prefix(MemoryLayout<nlmsghdr>.size + 4))
        var lying = cut
        lying.replaceSubrange(0..<4, with: M.host(UInt32(cut.count)))
        #expect(withMessage(lying) { LinkDecoder.decode($0) } == nil)
        #expect(withMessage(lying) { AddressDecoder.decode($0) } == nil)
        #expect(withMessage(lying) { RouteLookupRequest.lookup(fromReply: $0) } == nil)
        #expect(withMessage(lying) { RuleDecoder.decode($0) } == nil)
    }
}
