import PathModel

/// Builders for links, addresses and route answers, so a test case reads as the host it
/// describes. Index 1 is always `lo`, 2 `eth0`, 3 `wlan0`, 4 `wwan0`, 5 `wg0`.
enum Fixture {
    static let loIndex = InterfaceIndex(rawValue: 1)
    static let ethIndex = InterfaceIndex(rawValue: 2)
    static let wlanIndex = InterfaceIndex(rawValue: 3)
    static let wwanIndex = InterfaceIndex(rawValue: 4)
    static let wgIndex = InterfaceIndex(rawValue: 5)

    static let working: LinkFlags = [.up, .running, .lowerUp]

    static let lo = Link(index: loIndex, name: "lo", flags: [.up, .running, .lowerUp, .loopback], operState: .unknown,
                         hardwareType: .loopback, type: .loopback)

    static func eth0(flags: LinkFlags = working, operState: OperState = .up) -> Link {
        Link(index: ethIndex, name: "eth0", flags: flags, operState: operState, hardwareType: .ether, type: .wiredEthernet)
    }

    static func wlan0(flags: LinkFlags = working, operState: OperState = .up) -> Link {
        Link(index: wlanIndex, name: "wlan0", flags: flags, operState: operState, hardwareType: .ether, type: .wifi)
    }

    static func wwan0() -> Link {
        Link(index: wwanIndex, name: "wwan0", flags: working, operState: .up, hardwareType: HardwareType(rawValue: 519),
             type: .cellular)
    }

    /// WireGuard: no carrier concept, so operstate stays UNKNOWN while it works
    /// (ARPHRD_NONE = 65534).
    static func wg0() -> Link {
        Link(index: wgIndex, name: "wg0", flags: [.up, .running, .lowerUp], operState: .unknown,
             hardwareType: HardwareType(rawValue: 65534), kind: "wireguard", type: .other)
    }

    static func ip(_ text: String) -> IPAddress {
        guard let address = IPAddress(text) else { preconditionFailure("fixture address \(text) does not parse") }
        return address
    }

    static func address(_ text: String, on index: InterfaceIndex = ethIndex, prefix: UInt8? = nil,
                        flags: AddressFlags = [], scope: AddressScope = .universe) -> InterfaceAddress {
        let address = ip(text)
        return InterfaceAddress(interface: index, address: address,
                                prefixLength: prefix ?? (address.family == .ipv4 ? 24 : 64), flags: flags, scope: scope)
    }

    static func added(_ text: String, on index: InterfaceIndex = ethIndex, flags: AddressFlags = [],
                      scope: AddressScope = .universe) -> NetworkEvent {
        .addressChanged(address(text, on: index, flags: flags, scope: scope))
    }

    /// The kernel's lookup answer; `source` is the RTA_PREFSRC it names, nil when it found none.
    static func route(_ family: AddressFamily, via index: InterfaceIndex?, gateway: String? = nil,
                      source: String? = nil, type: RouteType = .unicast, isLinkDown: Bool = false) -> NetworkEvent {
        .routeLookup(family, .route(RouteAnswer(type: type, outputInterface: index, gateway: gateway.map(ip),
                                                preferredSource: source.map(ip), isLinkDown: isLinkDown)))
    }

    /// RTM_NEWROUTE of a default route in the main table (what criteria evaluation routes by).
    /// `scope` is what iproute2 gives it: link without a gateway, universe with one.
    static func defaultRoute(_ family: AddressFamily, via index: InterfaceIndex, gateway: String? = nil,
                             metric: UInt32 = 100, source: String? = nil) -> NetworkEvent {
        let any: IPAddress = family == .ipv4 ? .v4(0) : .v6(high: 0, low: 0)
        let scope: AddressScope = family == .ipv4 && gateway == nil ? .link : .universe
        return .routeChanged(TrackedRoute(family: family, destination: any, prefixLength: 0, metric: metric,
                                          nexthops: [Nexthop(interface: index, gateway: gateway.map(ip))],
                                          scope: scope, preferredSource: source.map(ip)),
                             replaces: false)
    }

    static func lookup(_ family: AddressFamily, _ lookup: RouteLookup) -> NetworkEvent {
        .routeLookup(family, lookup)
    }

    /// A dual-stack wired host with global addresses, a link-local address, default routes
    /// and the kernel's lookup answers that follow from them.
    static let dualStackEthernet: [NetworkEvent] = [
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
}
