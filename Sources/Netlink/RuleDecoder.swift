// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// What one RTM_NEWRULE / RTM_DELRULE says.
package enum RuleMessage: Equatable {
    case added(RoutingRule)
    case removed(RoutingRule)
}

package enum RuleDecoder {
    /// Decodes an IPv4/IPv6 policy rule (`struct fib_rule_hdr` and FRA_* attributes,
    /// linux/fib_rules.h); nil for other families. The kernel puts a selector attribute
    /// in the message only when the rule has that selector (net/core/fib_rules.c
    /// `fib_nl_fill_rule`), so presence means "selects on it".
    package static func decode(_ header: UnsafeMutablePointer<nlmsghdr>) -> RuleMessage? {
        let type = Int(header.pointee.nlmsg_type)
        guard type == RTM_NEWRULE || type == RTM_DELRULE, header.hasPayload(of: fib_rule_hdr.self) else { return nil }
        let rule = header.payload(as: fib_rule_hdr.self)
        guard let family = AddressFamily(linuxValue: rule.family) else { return nil }
        let decoded = Attributes.parse(header, headerSize: MemoryLayout<fib_rule_hdr>.size,
                                       maxType: Int(__FRA_MAX) - 1) { attributes -> RoutingRule in
            let action: RoutingRule.Action
            switch Int(rule.action) {
            case Int(FR_ACT_TO_TBL):
                action = .lookup(table: attributes.uint32(Int(FRA_TABLE)) ?? UInt32(rule.table))
            case Int(FR_ACT_BLACKHOLE): action = .reject(.blackhole)
            case Int(FR_ACT_UNREACHABLE): action = .reject(.unreachable)
            case Int(FR_ACT_PROHIBIT): action = .reject(.prohibit)
            default: action = .other(rule.action)
            }
            let inputInterface = attributes.string(Int(FRA_IIFNAME))
            let otherSelectors = rule.dst_len > 0 || rule.src_len > 0 || rule.tos != 0
                || (inputInterface != nil && inputInterface != "lo")
                || [FRA_OIFNAME, FRA_UID_RANGE, FRA_L3MDEV, FRA_IP_PROTO, FRA_SPORT_RANGE, FRA_DPORT_RANGE, FRA_TUN_ID]
                    .contains { attributes[Int($0)] != nil }
            let mark = attributes.uint32(Int(FRA_FWMARK))
            return RoutingRule(family: family, priority: attributes.uint32(Int(FRA_PRIORITY)) ?? 0, action: action,
                               isInverted: rule.flags & UInt32(FIB_RULE_INVERT) != 0,
                               firewallMark: mark,
                               firewallMask: attributes.uint32(Int(FRA_FWMASK)) ?? (mark == nil ? 0 : 0xFFFF_FFFF),
                               suppressPrefixLength: attributes.uint32(Int(FRA_SUPPRESS_PREFIXLEN)).map {
                                   Int32(bitPattern: $0)
                               },
                               hasOtherSelectors: otherSelectors)
        }
        guard let decoded else { return nil }
        return type == RTM_DELRULE ? .removed(decoded) : .added(decoded)
    }
}
