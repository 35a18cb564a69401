import PathModel

/// What a `NetlinkMonitor` asks of the kernel and where it looks.
public struct NetlinkConfiguration: Sendable {
    /// Destinations for the per-family RTM_GETROUTE lookups (no packet is sent).
    /// The defaults are documentation addresses (RFC 5737, RFC 3849): covered by a
    /// default route, never by a local one.
    public var lookupDestinations: [AddressFamily: IPAddress]
    /// Requested receive buffer of the event socket; SO_RCVBUFFORCE first (root),
    /// else SO_RCVBUF (capped by net.core.rmem_max). 8 MiB lost no event of a
    /// 1M-route flood (TOOLCHAIN-FACTS.md).
    public var receiveBufferBytes: Int
    /// Root of sysfs for interface classification, injected for tests.
    public var sysfsRoot: String

    public init(lookupDestinations: [AddressFamily: IPAddress] = NetlinkConfiguration.defaultLookupDestinations,
                receiveBufferBytes: Int = 8 * 1024 * 1024,
                sysfsRoot: String = "/sys") {
        self.lookupDestinations = lookupDestinations
        self.receiveBufferBytes = receiveBufferBytes
        self.sysfsRoot = sysfsRoot
    }

    /// 203.0.113.1 and 2001:db8::1 (see `LookupDestinations`).
    public static let defaultLookupDestinations = LookupDestinations.defaults
}
