/// The kind of medium an interface is, as NWInterface.InterfaceType defines it.
///
/// A type says nothing about cost: "expensive" and "constrained" are policy (see
/// `Policy`), and cellular is only expensive by default.
public enum InterfaceType: String, Hashable, Sendable, CaseIterable {
    case wifi
    case cellular
    case wiredEthernet
    case loopback
    case other
}

/// One interface as a path lists it.
public struct Interface: Hashable, Sendable {
    public var name: String
    public var index: InterfaceIndex
    public var type: InterfaceType
    /// It carries traffic inside other traffic (WireGuard, tun, GRE, PPP; `Link.isTunnel`):
    /// the path then also uses its underlay, the first non-tunnel interface after it.
    public var isTunnel: Bool

    public init(name: String, index: InterfaceIndex, type: InterfaceType, isTunnel: Bool = false) {
        self.name = name
        self.index = index
        self.type = type
        self.isTunnel = isTunnel
    }
}
