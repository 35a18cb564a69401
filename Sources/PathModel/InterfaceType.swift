/// The kind of medium an interface is, as NWInterface.InterfaceType defines it.
///
/// A type says nothing about cost: "expensive" and "constrained" are policy (see
/// `Policy`), and cellular is only expensive by default.
///
/// Open (docs/PROTOCOL.md, "Version rule"): a newer pathd may name a type this version
/// does not know; pathd's own configuration and criteria accept only `allCases`.
public enum InterfaceType: OpenEnumeration {
    case wifi
    case cellular
    case wiredEthernet
    case loopback
    case other
    /// A type a newer pathd sent, by its name (Apple's names see it as `.other`).
    case unrecognized(String)

    public static let allCases: [InterfaceType] = [.wifi, .cellular, .wiredEthernet, .loopback, .other]

    public var rawValue: String {
        switch self {
        case .wifi: "wifi"
        case .cellular: "cellular"
        case .wiredEthernet: "wiredEthernet"
        case .loopback: "loopback"
        case .other: "other"
        case .unrecognized(let name): name
        }
    }
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
