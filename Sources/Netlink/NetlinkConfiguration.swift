import PathModel
import PathConfiguration

/// What a `NetlinkMonitor` asks of the kernel and where it looks.
public struct NetlinkConfiguration: Sendable {
    /// Destinations for the per-family RTM_GETROUTE lookups (no packet is sent).
    /// The defaults are documentation addresses (RFC 5737, RFC 3849): covered by a
    /// default route, never by a local one.
    public var lookupDestinations: LookupDestinations
    /// Requested receive buffer of the event socket; SO_RCVBUFFORCE first (root),
    /// else SO_RCVBUF (capped by net.core.rmem_max). 8 MiB lost no event of a
    /// 1M-route flood (docs/ARCHITECTURE.md, "Toolchain and kernel facts").
    public var receiveBufferBytes: Int
    /// Root of sysfs for interface classification, injected for tests.
    public var sysfsRoot: String

    public init(lookupDestinations: LookupDestinations = .standard,
                receiveBufferBytes: Int = DaemonSettings().receiveBufferBytes,
                sysfsRoot: String = "/sys") {
        self.lookupDestinations = lookupDestinations
        self.receiveBufferBytes = receiveBufferBytes
        self.sysfsRoot = sysfsRoot
    }

    /// What `[Daemon]` of pathd.conf says about the lookups and the receive buffer.
    public init(_ settings: DaemonSettings) {
        self.init(lookupDestinations: settings.lookupDestinations, receiveBufferBytes: settings.receiveBufferBytes)
    }
}
