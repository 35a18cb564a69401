// SPDX-License-Identifier: Apache-2.0
/// Interface flags from `ifi_flags` (`IFF_*`, `<linux/if.h>`), only those pathd reads.
public struct LinkFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// IFF_UP: administratively up (`ip link set X up`).
    public static let up = LinkFlags(rawValue: 0x1)
    /// IFF_LOOPBACK.
    public static let loopback = LinkFlags(rawValue: 0x8)
    /// IFF_NOARP: no neighbour resolution on this link (point-to-point, tun).
    public static let noARP = LinkFlags(rawValue: 0x80)
    /// IFF_MASTER: a bonding master (bonding sets it; a bridge or team does not).
    public static let master = LinkFlags(rawValue: 0x400)
    /// IFF_RUNNING: operationally up as RFC 2863 says (carrier and not dormant).
    public static let running = LinkFlags(rawValue: 0x40)
    /// IFF_LOWER_UP: the driver reports carrier.
    public static let lowerUp = LinkFlags(rawValue: 0x10000)
    /// IFF_DORMANT: waiting for an external event (802.1X, a modem dialling).
    public static let dormant = LinkFlags(rawValue: 0x20000)
}

/// RFC 2863 operational state (`IFLA_OPERSTATE`, `IF_OPER_*` in `<linux/if.h>`).
public enum OperState: UInt8, Hashable, Sendable, CaseIterable {
    case unknown = 0
    case notPresent = 1
    case down = 2
    case lowerLayerDown = 3
    case testing = 4
    case dormant = 5
    case up = 6

    /// The name `ip link` prints, for logs and the `interfaces` reply.
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .notPresent: "notPresent"
        case .down: "down"
        case .lowerLayerDown: "lowerLayerDown"
        case .testing: "testing"
        case .dormant: "dormant"
        case .up: "up"
        }
    }
}

/// ARP hardware type of a link (`ifi_type`, `ARPHRD_*` in `<net/if_arp.h>`).
public struct HardwareType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// ARPHRD_ETHER.
    public static let ether = HardwareType(rawValue: 1)
    /// ARPHRD_IEEE802 (Token Ring and the like: 6-byte addresses).
    public static let ieee802 = HardwareType(rawValue: 6)
    /// ARPHRD_INFINIBAND (20-byte addresses, resolved by ARP and NDP like Ethernet).
    public static let infiniband = HardwareType(rawValue: 32)
    /// ARPHRD_LOOPBACK.
    public static let loopback = HardwareType(rawValue: 772)

    /// Whether links of this type have link-layer addresses that neighbour resolution
    /// (ARP, NDP) finds: what a network identity can be anchored on (`LinkNetwork.Anchor`).
    public var hasLinkLayerAddresses: Bool { self == .ether || self == .ieee802 || self == .infiniband }
}

/// One network link as the kernel last described it in RTM_NEWLINK.
public struct Link: Hashable, Sendable {
    public var index: InterfaceIndex
    public var name: String
    public var flags: LinkFlags
    public var operState: OperState
    public var hardwareType: HardwareType
    /// The rtnetlink link kind (`IFLA_INFO_KIND`: veth, bridge, wireguard, tun, …), if any.
    public var kind: String?
    /// The detected medium (sysfs and hardware type; see `InterfaceClassifier`).
    public var type: InterfaceType
    /// `IFLA_MASTER`: the bridge, bond, team or VRF this link is a port of, if any. The
    /// one record of who is whose port: a master's ports are the links naming it here.
    public var master: InterfaceIndex?
    /// `IFLA_CARRIER_DOWN_COUNT`: how often the carrier was lost since the link was made.
    /// It grows even when the kernel reports a short loss and its return in one message
    /// (linkwatch runs at most once a second), so a carrier flap is seen either way.
    public var carrierDownCount: UInt32?
    /// The driver bound to the link's device (`DRIVER=` in
    /// `/sys/class/net/NAME/device/uevent`): `ipheth` is a hint (`NetworkHint`).
    public var driver: String?

    public init(index: InterfaceIndex, name: String, flags: LinkFlags, operState: OperState,
                hardwareType: HardwareType, kind: String? = nil, type: InterfaceType, master: InterfaceIndex? = nil,
                carrierDownCount: UInt32? = nil, driver: String? = nil) {
        self.index = index
        self.name = name
        self.flags = flags
        self.operState = operState
        self.hardwareType = hardwareType
        self.kind = kind
        self.type = type
        self.master = master
        self.carrierDownCount = carrierDownCount
        self.driver = driver
    }

    /// Whether the link resolves its neighbours' link-layer addresses (ARP, NDP), so
    /// that its gateway has a MAC to anchor a network identity on: a hardware type with
    /// such addresses, without IFF_NOARP.
    public var resolvesNeighbours: Bool { hardwareType.hasLinkLayerAddresses && !flags.contains(.noARP) }

    /// Whether the driver reports carrier (IFF_RUNNING; `Link.linkState` for the rest).
    public var hasCarrier: Bool { flags.contains(.running) }

    /// Whether the kernel is asked about this link on its own (`NetworkEvent.interfaceLookup`):
    /// up and not loopback. A link that is down is refused before any table is read.
    public var hasOwnLookups: Bool { flags.contains(.up) && !isLoopback }

    public var isLoopback: Bool { flags.contains(.loopback) || hardwareType == .loopback || type == .loopback }

    /// A link that carries traffic inside other traffic (WireGuard, tun, GRE, SIT, PPP):
    /// whatever it costs, its underlay costs too.
    public var isTunnel: Bool {
        if let kind, ["wireguard", "tun", "ipip", "gre", "gretap", "sit", "vti", "vti6", "ip6tnl", "ip6gre",
                      "ppp", "l2tp", "openvpn"].contains(kind) { return true }
        // ARPHRD_PPP 512, ARPHRD_TUNNEL 768, ARPHRD_TUNNEL6 769, ARPHRD_SIT 776,
        // ARPHRD_IPGRE 778, ARPHRD_IP6GRE 823, ARPHRD_NONE 65534 (tun, WireGuard).
        return [512, 768, 769, 776, 778, 823, 65534].contains(hardwareType.rawValue)
    }

    /// Whether the link aggregates ports and carries traffic only through them: a
    /// bridge, a bond or a team (by the kernel's link kind, or IFF_MASTER, which bonding
    /// sets). Not a VRF: it is an L3 master whose traffic does not leave through its ports.
    public var aggregatesPorts: Bool {
        if flags.contains(.master) { return true }
        guard let kind else { return false }
        return ["bridge", "bond", "team"].contains(kind)
    }

    /// What the link's own flags and operstate say about carrying traffic: admin up,
    /// IFF_RUNNING, and operstate UP or UNKNOWN. tun and WireGuard links never report UP:
    /// they stay UNKNOWN while working (Documentation/networking/operstates.rst).
    /// A master's ports can overrule this; ask `Snapshot.linkState(of:)`, which knows them.
    public var linkState: LinkState {
        if !flags.contains(.up) { return .adminDown }
        if operState == .dormant || flags.contains(.dormant) { return .dormant }
        if !flags.contains(.running) { return .noCarrier }
        switch operState {
        case .up, .unknown: return .usable
        case .dormant: return .dormant
        case .down, .lowerLayerDown, .notPresent, .testing: return .noCarrier
        }
    }
}

/// What a link's flags and operstate say about carrying traffic.
public enum LinkState: String, Hashable, Sendable {
    case usable
    case adminDown
    case noCarrier
    case dormant
}
