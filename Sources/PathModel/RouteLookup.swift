// SPDX-License-Identifier: Apache-2.0
/// Route type (`rtm_type`, `RTN_*` in `<linux/rtnetlink.h>`).
public struct RouteType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let unicast = RouteType(rawValue: 1)
    public static let local = RouteType(rawValue: 2)
    public static let broadcast = RouteType(rawValue: 3)
    public static let anycast = RouteType(rawValue: 4)
    public static let multicast = RouteType(rawValue: 5)
    public static let blackhole = RouteType(rawValue: 6)
    public static let unreachable = RouteType(rawValue: 7)
    public static let prohibit = RouteType(rawValue: 8)
    public static let `throw` = RouteType(rawValue: 9)

    /// Whether a route of this type refuses traffic on purpose (a kill switch).
    public var rejectsTraffic: Bool {
        self == .blackhole || self == .unreachable || self == .prohibit || self == .throw
    }

    /// Whether a lookup answered with this type delivers to this host: its own address
    /// (`local`, `dev lo`) or an anycast address it holds (IPv6's subnet-router anycast
    /// on a router, also `dev lo`).
    public var deliversLocally: Bool {
        self == .local || self == .anycast
    }

    /// Whether traffic goes out through the interface the lookup names: to one host
    /// (`unicast`), or to every host of a link or group (`broadcast`: 255.255.255.255 or
    /// a subnet's broadcast address; `multicast`), which is as usable as that interface.
    public var sendsThroughInterface: Bool {
        self == .unicast || self == .broadcast || self == .multicast
    }

    public var description: String {
        switch self {
        case .unicast: "unicast"
        case .local: "local"
        case .broadcast: "broadcast"
        case .anycast: "anycast"
        case .multicast: "multicast"
        case .blackhole: "blackhole"
        case .unreachable: "unreachable"
        case .prohibit: "prohibit"
        case .throw: "throw"
        default: "type \(rawValue)"
        }
    }
}

/// The route the kernel said it would use for a destination (RTM_GETROUTE reply).
public struct RouteAnswer: Hashable, Sendable {
    public var type: RouteType
    /// RTA_OIF.
    public var outputInterface: InterfaceIndex?
    /// RTA_GATEWAY; nil for an on-link route.
    public var gateway: IPAddress?
    /// RTA_TABLE: the table that answered (asked for with RTM_F_LOOKUP_TABLE).
    public var table: UInt32
    /// RTA_PREFSRC: the source address the kernel would choose.
    public var preferredSource: IPAddress?
    /// RTNH_F_LINKDOWN: the route's link has no carrier.
    public var isLinkDown: Bool
    /// The routing table entry that answered, when the lookup asked for it
    /// (RTM_F_FIB_MATCH: an interface's own lookup); nil for the lookups that ask for the
    /// route traffic would take (the default path's, the `route` request's).
    public var entry: RouteEntry?

    public init(type: RouteType, outputInterface: InterfaceIndex?, gateway: IPAddress? = nil,
                table: UInt32 = 254, preferredSource: IPAddress? = nil, isLinkDown: Bool = false,
                entry: RouteEntry? = nil) {
        self.type = type
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.table = table
        self.preferredSource = preferredSource
        self.isLinkDown = isLinkDown
        self.entry = entry
    }
}

/// What a whole-entry reply (RTM_F_FIB_MATCH) says of the routing table entry beyond
/// the hop: what the kernel ranks entries by within a table (the longest prefix, then
/// the lowest metric), and the scope an IPv4 source address must reach
/// (SourceAddress.swift). With it the answer's `preferredSource` is the entry's own
/// `src`, not a source the kernel chose.
public struct RouteEntry: Hashable, Sendable {
    /// `rtm_dst_len`: 0 for a default route.
    public var prefixLength: UInt8
    /// RTA_PRIORITY; lower wins.
    public var metric: UInt32
    /// `rtm_scope`: link for a route without a gateway (`default dev eth0`), universe with one.
    public var scope: AddressScope

    public init(prefixLength: UInt8, metric: UInt32 = 0, scope: AddressScope = .universe) {
        self.prefixLength = prefixLength
        self.metric = metric
        self.scope = scope
    }
}

/// The outcome of asking the kernel which route it would take for one family.
public enum RouteLookup: Hashable, Sendable {
    /// The kernel answered with a route.
    case route(RouteAnswer)
    /// No route covers the destination (ENETUNREACH).
    case noRoute
    /// A rejecting route won the lookup and the kernel answered with its error
    /// (EHOSTUNREACH for unreachable, EACCES for prohibit, EINVAL for blackhole).
    case rejected(RouteType)
    /// The lookup failed for another reason; the errno value is kept for the log.
    case failed(errno: Int32)
}

/// The kernel's answers about one destination (the `route` request): the route its
/// traffic would take and, as for the lookup destination (`NetworkEvent.interfaceLookup`),
/// the route through each interface the kernel is asked about on its own.
public struct DestinationLookup: Hashable, Sendable {
    public var route: RouteLookup
    public var throughInterface: [InterfaceIndex: RouteLookup]

    public init(route: RouteLookup, throughInterface: [InterfaceIndex: RouteLookup] = [:]) {
        self.route = route
        self.throughInterface = throughInterface
    }
}

/// The kernel's answer for a watched route (`RouteWatcher`): its lookup, or none because
/// the route's zone names no interface now.
public enum WatchedRouteAnswer: Hashable, Sendable {
    case lookup(DestinationLookup)
    case noInterface
}
