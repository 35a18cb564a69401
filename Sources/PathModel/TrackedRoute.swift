/// One hop of a route: the interface and, unless the route is on-link, the gateway.
public struct Nexthop: Hashable, Sendable {
    public var interface: InterfaceIndex
    public var gateway: IPAddress?
    /// RTNH_F_LINKDOWN: the nexthop's link has no carrier.
    public var isLinkDown: Bool

    public init(interface: InterfaceIndex, gateway: IPAddress? = nil, isLinkDown: Bool = false) {
        self.interface = interface
        self.gateway = gateway
        self.isLinkDown = isLinkDown
    }
}

/// A short-prefix route (prefix length 0 or 1, any table): the only routes pathd keeps.
/// Default routes and VPN split routes (OpenVPN's 0.0.0.0/1 + 128.0.0.0/1) are all of
/// this kind; everything longer is left to the kernel's lookup, so memory does not
/// grow with the routing table. Its identity's fields read as its own (`route.table`).
@dynamicMemberLookup
public struct TrackedRoute: Hashable, Sendable {
    /// What the kernel identifies a route by when it replaces or deletes one: family,
    /// table, destination, tos and priority (net/ipv4/fib_trie.c `fib_table_delete`).
    public struct Identity: Hashable, Sendable {
        public var family: AddressFamily
        /// RTA_TABLE (or rtm_table): 254 is main.
        public var table: UInt32
        public var destination: IPAddress
        public var prefixLength: UInt8
        public var tos: UInt8
        /// RTA_PRIORITY: the metric; lower wins.
        public var metric: UInt32
    }

    public var identity: Identity
    public var type: RouteType
    /// One for a plain route, several for ECMP (RTA_MULTIPATH); none for a rejecting route.
    public var nexthops: [Nexthop]
    /// `rtm_scope`: universe for a route via a gateway, link for one without (`ip route
    /// add default dev eth0`). An IPv4 source address is taken only from addresses of
    /// this scope or wider (net/ipv4/fib_semantics.c `fib_result_prefsrc`).
    public var scope: AddressScope
    /// RTA_PREFSRC (`ip route add … src ADDRESS`): the source the kernel uses for traffic
    /// by this route instead of choosing one.
    public var preferredSource: IPAddress?

    /// The routes with the longest prefix the daemon tracks.
    public static let maximumPrefixLength: UInt8 = 1

    public init(family: AddressFamily, table: UInt32 = 254, destination: IPAddress, prefixLength: UInt8, tos: UInt8 = 0,
                metric: UInt32 = 0, type: RouteType = .unicast, nexthops: [Nexthop], scope: AddressScope = .universe,
                preferredSource: IPAddress? = nil) {
        identity = Identity(family: family, table: table, destination: destination, prefixLength: prefixLength,
                            tos: tos, metric: metric)
        self.type = type
        self.nexthops = nexthops
        self.scope = scope
        self.preferredSource = preferredSource
    }

    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<Identity, Value>) -> Value {
        get { identity[keyPath: field] }
        set { identity[keyPath: field] = newValue }
    }

    /// Whether the route covers `address` (same family, prefix matches).
    public func covers(_ address: IPAddress) -> Bool {
        guard address.family == identity.family else { return false }
        switch identity.prefixLength {
        case 0: return true
        case 1: return address.bytes[0] & 0x80 == identity.destination.bytes[0] & 0x80
        default: return address == identity.destination
        }
    }
}

/// A routing policy rule (`ip rule`), as RTM_NEWRULE describes it. Only what decides
/// whether ordinary, unmarked traffic from this host reaches a table.
public struct RoutingRule: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        /// FR_ACT_TO_TBL: look the destination up in this table.
        case lookup(table: UInt32)
        /// FR_ACT_BLACKHOLE, FR_ACT_UNREACHABLE, FR_ACT_PROHIBIT: refuse.
        case reject(RouteType)
        /// FR_ACT_GOTO, FR_ACT_NOP and anything else: no decision here.
        case other(UInt8)
    }

    public var family: AddressFamily
    public var priority: UInt32
    public var action: Action
    /// FIB_RULE_INVERT: the selector's result is inverted (`ip rule add not …`).
    public var isInverted: Bool
    /// FRA_FWMARK / FRA_FWMASK; nil when the rule does not match on a mark.
    public var firewallMark: UInt32?
    public var firewallMask: UInt32
    /// FRA_SUPPRESS_PREFIXLEN: answers with a prefix this long or shorter are ignored.
    public var suppressPrefixLength: Int32?
    /// Whether the rule also selects on something ordinary traffic cannot be assumed
    /// to have or lack: a source or destination prefix, tos, an interface other than
    /// `lo`, a uid range, an L3 master device.
    public var hasOtherSelectors: Bool

    public init(family: AddressFamily, priority: UInt32, action: Action, isInverted: Bool = false,
                firewallMark: UInt32? = nil, firewallMask: UInt32 = 0xFFFF_FFFF,
                suppressPrefixLength: Int32? = nil, hasOtherSelectors: Bool = false) {
        self.family = family
        self.priority = priority
        self.action = action
        self.isInverted = isInverted
        self.firewallMark = firewallMark
        self.firewallMask = firewallMask
        self.suppressPrefixLength = suppressPrefixLength
        self.hasOtherSelectors = hasOtherSelectors
    }

    /// Whether the rule selects unmarked traffic this host originates (fwmark 0), as
    /// the kernel's `fib_rule_match` would (net/core/fib_rules.c).
    public var matchesUnmarkedTraffic: Bool {
        if hasOtherSelectors { return false }
        var matches = true
        // fib_rule_match: ((rule->mark ^ skb_mark) & rule->mark_mask) == 0, with a mark of 0.
        if let mark = firewallMark { matches = (mark & firewallMask) == 0 }
        return isInverted ? !matches : matches
    }

    /// The rules every Linux host starts with (`ip rule` on a fresh boot): local, main,
    /// default. Used only when the kernel reported no rule for a family.
    public static func defaults(for family: AddressFamily) -> [RoutingRule] {
        [RoutingRule(family: family, priority: 0, action: .lookup(table: 255)),
         RoutingRule(family: family, priority: 32766, action: .lookup(table: 254)),
         RoutingRule(family: family, priority: 32767, action: .lookup(table: 253))]
    }
}
