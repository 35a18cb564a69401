// SPDX-License-Identifier: Apache-2.0
/// Where pathd asks the kernel to route (RTM_GETROUTE, as `ip route get`), one address
/// per family: by default addresses reserved for documentation, so no real network is
/// ever on-link. No packet is sent. A setting like `Policy`, passed where it is needed
/// (the netlink lookups, the evaluator's simulation); never part of the kernel's state.
public struct LookupDestinations: Hashable, Sendable {
    public var ipv4: IPAddress
    public var ipv6: IPAddress

    public init(ipv4: IPAddress, ipv6: IPAddress) {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }

    /// 203.0.113.1 (TEST-NET-3, RFC 5737) and 2001:db8::1 (RFC 3849). Not 192.0.2.1:
    /// TEST-NET-1 is often the on-link network of test rigs and sandboxes (it is on the
    /// machines pathd is developed on), and an on-link answer would hide a missing
    /// default route.
    public static let standard = LookupDestinations(ipv4: .v4(0xCB00_7101),
                                                    ipv6: .v6(high: 0x2001_0DB8_0000_0000, low: 1))

    public subscript(family: AddressFamily) -> IPAddress {
        family == .ipv4 ? ipv4 : ipv6
    }
}
