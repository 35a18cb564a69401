// SPDX-License-Identifier: Apache-2.0
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
