import PathModel

/// A small host: lo and eth0 with 198.51.100.2/24 and a default route via .1.
enum Fixture {
    static let loopback = Link(index: InterfaceIndex(rawValue: 1), name: "lo", flags: [.up, .running, .loopback],
                               operState: .unknown, hardwareType: .loopback, type: .loopback)
    static let eth0 = Link(index: InterfaceIndex(rawValue: 2), name: "eth0", flags: [.up, .running, .lowerUp],
                           operState: .up, hardwareType: .ether, type: .wiredEthernet)
    static var eth0NoCarrier: Link {
        var link = eth0
        link.flags = [.up]
        link.operState = .lowerLayerDown
        return link
    }
    static let eth0Address = InterfaceAddress(interface: eth0.index, address: IPAddress("198.51.100.2")!, prefixLength: 24)
    static let defaultRoute = RouteLookup.route(RouteAnswer(type: .unicast, outputInterface: eth0.index,
                                                            gateway: IPAddress("198.51.100.1")!,
                                                            preferredSource: eth0Address.address))

    static let online: [NetworkEvent] = [
        .linkChanged(loopback), .linkChanged(eth0), .addressChanged(eth0Address),
        .routeLookup(.ipv4, defaultRoute), .routeLookup(.ipv6, .noRoute),
    ]
}
