// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The one fixture library of the unit, protocol and daemon tests: builders for links,
/// addresses and route answers, so a test case reads as the host it describes, and the
/// hosts and paths the tests share. Index 1 is always `lo`, 2 `eth0`, 3 `wlan0`,
/// 4 `wwan0`, 5 `wg0`.
public enum Fixture {
    public static let loIndex = InterfaceIndex(rawValue: 1)
    public static let ethIndex = InterfaceIndex(rawValue: 2)
    public static let wlanIndex = InterfaceIndex(rawValue: 3)
    public static let wwanIndex = InterfaceIndex(rawValue: 4)
    public static let wgIndex = InterfaceIndex(rawValue: 5)

    public static let working: LinkFlags = [.up, .running, .lowerUp]

    public static let lo = Link(index: loIndex, name: "lo", flags: [.up, .running, .lowerUp, .loopback],
                                operState: .unknown,
                         hardwareType: .loopback, type: .loopback)

    public static func eth0(flags: LinkFlags = working, operState: OperState = .up) -> Link {
        Link(index: ethIndex, name: "eth0", flags: flags, operState: operState, hardwareType: .ether,
             type: .wiredEthernet)
    }

    public static func wlan0(flags: LinkFlags = working, operState: OperState = .up) -> Link {
        Link(index: wlanIndex, name: "wlan0", flags: flags, operState: operState, hardwareType: .ether, type: .wifi)
    }

    public static func wwan0() -> Link {
        Link(index: wwanIndex, name: "wwan0", flags: working, operState: .up, hardwareType: HardwareType(rawValue: 519),
             type: .cellular)
    }

    /// WireGuard: no carrier concept, so operstate stays UNKNOWN while it works
    /// (ARPHRD_NONE = 65534).
    public static func wg0() -> Link {
        Link(index: wgIndex, name: "wg0", flags: [.up, .running, .lowerUp], operState: .unknown,
             hardwareType: HardwareType(rawValue: 65534), kind: "wireguard", type: .other)
    }

    public static func ip(_ text: String) -> IPAddress {
        guard let address = IPAddress(text) else { preconditionFailure("fixture address \(text) does not parse") }
        return address
    }

    public static func address(_ text: String, on index: InterfaceIndex = ethIndex, prefix: UInt8? = nil,
                        flags: AddressFlags = [], scope: AddressScope = .universe) -> InterfaceAddress {
        let address = ip(text)
        return InterfaceAddress(interface: index, address: address,
                                prefixLength: prefix ?? (address.family == .ipv4 ? 24 : 64), flags: flags, scope: scope)
    }

    public static func added(_ text: String, on index: InterfaceIndex = ethIndex, flags: AddressFlags = [],
                      scope: AddressScope = .universe) -> NetworkEvent {
        .addressChanged(address(text, on: index, flags: flags, scope: scope))
    }

    /// The kernel's lookup answer; `source` is the RTA_PREFSRC it names, nil when it found none.
    public static func route(_ family: AddressFamily, via index: InterfaceIndex?, gateway: String? = nil,
                      source: String? = nil, type: RouteType = .unicast, isLinkDown: Bool = false) -> NetworkEvent {
        .routeLookup(family, .route(RouteAnswer(type: type, outputInterface: index, gateway: gateway.map(ip),
                                                preferredSource: source.map(ip), isLinkDown: isLinkDown)))
    }

    /// The interface's own lookup (what criteria evaluation routes by) answered with a
    /// default route of the main table through it, as `ip route get fibmatch … oif`
    /// answers for a host whose only route through the interface is that default.
    /// `scope` is what iproute2 gives it: link without a gateway, universe with one;
    /// `source` is the route's own `src`.
    public static func defaultRoute(_ family: AddressFamily, via index: InterfaceIndex, gateway: String? = nil,
                                    metric: UInt32 = 100, source: String? = nil, table: UInt32 = 254,
                                    prefixLength: UInt8 = 0) -> NetworkEvent {
        let scope: AddressScope = family == .ipv4 && gateway == nil ? .link : .universe
        return .interfaceLookup(family, index, .route(RouteAnswer(
            type: .unicast, outputInterface: index, gateway: gateway.map(ip), table: table,
            preferredSource: source.map(ip),
            entry: RouteEntry(prefixLength: prefixLength, metric: metric, scope: scope))))
    }

    public static func lookup(_ family: AddressFamily, _ lookup: RouteLookup) -> NetworkEvent {
        .routeLookup(family, lookup)
    }

    /// A dual-stack wired host with global addresses, a link-local address, default routes
    /// and the kernel's lookup answers that follow from them.
    public static let dualStackEthernet: [NetworkEvent] = [
        .linkChanged(lo),
        added("127.0.0.1", on: loIndex, scope: .host),
        added("::1", on: loIndex, scope: .host),
        .linkChanged(eth0()),
        added("192.0.2.10"),
        added("2001:db8::10"),
        added("fe80::10", scope: .link),
        defaultRoute(.ipv4, via: ethIndex, gateway: "192.0.2.1"),
        defaultRoute(.ipv6, via: ethIndex, gateway: "fe80::1"),
        route(.ipv4, via: ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"),
        route(.ipv6, via: ethIndex, gateway: "fe80::1", source: "2001:db8::10"),
    ]

    // MARK: The online host of the daemon tests

    /// eth0 up but without carrier, as a cable pulled out leaves it.
    public static var eth0NoCarrier: Link {
        var link = eth0()
        link.flags = [.up]
        link.operState = .lowerLayerDown
        return link
    }

    /// eth0's address on the online host.
    public static let onlineAddress = address("198.51.100.2")
    /// The kernel's IPv4 answer on the online host: via 198.51.100.1, from its address.
    public static let onlineDefaultRoute = RouteLookup.route(RouteAnswer(
        type: .unicast, outputInterface: ethIndex, gateway: ip("198.51.100.1"), preferredSource: onlineAddress.address))

    /// The address the route-request tests ask about, and the kernel's answer for it on
    /// the online host: via eth0 and 198.51.100.1, in the main table.
    public static let routeDestination = ip("203.0.113.50")
    public static let routeViaEth0 = RouteLookup.route(RouteAnswer(
        type: .unicast, outputInterface: ethIndex, gateway: ip("198.51.100.1"), table: 254,
        preferredSource: onlineAddress.address))

    /// A small host: lo and eth0 with 198.51.100.2/24 and an IPv4 default route via .1.
    public static let online: [NetworkEvent] = [
        .linkChanged(lo), .linkChanged(eth0()), .addressChanged(onlineAddress),
        .routeLookup(.ipv4, onlineDefaultRoute), .routeLookup(.ipv6, .noRoute),
    ]

    // MARK: Paths as the protocol tests pin them

    public static let eth0Interface = Interface(name: "eth0", index: ethIndex, type: .wiredEthernet)
    public static let wlan0Interface = Interface(name: "wlan0", index: wlanIndex, type: .wifi)

    /// A wall-clock second, from RFC 3339 text.
    public static func time(_ text: String) -> UTCTime {
        guard let time = UTCTime(text) else { preconditionFailure("fixture time \(text) does not parse") }
        return time
    }

    /// A 302 to a login page, seen through wlan0.
    public static let portal = Connectivity(state: .portal, evidence: ConnectivityEvidence(
        url: "http://check.example.org/pathd", interface: "wlan0", httpStatus: 302,
        redirectTarget: "http://login.example/",
        bytesReceived: 0, bodySHA256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        elapsedMilliseconds: 12, checkedAt: time("2026-12-01T08:30:00Z")))

    /// The expected content, through eth0.
    public static let full = Connectivity(state: .full, evidence: ConnectivityEvidence(
        url: "http://check.example.org/pathd", interface: "eth0", httpStatus: 200, bytesReceived: 9,
        bodySHA256: "5200f31394e983861b573ecf424853b57ad2abc2218a0d2cc390877a6bcc2197",
        elapsedMilliseconds: 31, checkedAt: time("2026-12-01T08:29:58Z")))
}
