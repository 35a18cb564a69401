/// Where pathd asks the kernel to route (RTM_GETROUTE, as `ip route get`): addresses
/// reserved for documentation, so no real network is ever on-link. No packet is sent.
public enum LookupDestinations {
    /// 203.0.113.1 (TEST-NET-3, RFC 5737). Not 192.0.2.1: TEST-NET-1 is often the
    /// on-link network of test rigs and sandboxes (it is on the machines pathd is
    /// developed on), and an on-link answer would hide a missing default route.
    public static let ipv4 = IPAddress.v4(0xCB00_7101)
    /// 2001:db8::1 (RFC 3849).
    public static let ipv6 = IPAddress.v6(high: 0x2001_0DB8_0000_0000, low: 1)

    public static let defaults: [AddressFamily: IPAddress] = [.ipv4: ipv4, .ipv6: ipv6]
}
