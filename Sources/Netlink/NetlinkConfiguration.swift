// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What a `NetlinkMonitor` asks of the kernel and where it looks: plain values, which
/// pathd and the in-process engine take from pathd.conf's `DaemonSettings`.
public struct NetlinkConfiguration: Sendable {
    /// Destinations for the per-family RTM_GETROUTE lookups (no packet is sent).
    /// The defaults are documentation addresses (RFC 5737, RFC 3849): covered by a
    /// default route, never by a local one.
    public var lookupDestinations: LookupDestinations
    /// Requested receive buffer of the event socket; SO_RCVBUFFORCE first (root),
    /// else SO_RCVBUF (capped by net.core.rmem_max).
    public var receiveBufferBytes: Int
    /// Root of sysfs for interface classification, injected for tests.
    public var sysfsRoot: String
    /// `ResolveGateways=`: ask the kernel to confirm gateways not confirmed since their
    /// link's carrier came back (`NetlinkMonitor.refreshNeighbours`).
    public var resolvesGateways: Bool

    public init(lookupDestinations: LookupDestinations = .standard, receiveBufferBytes: Int,
                sysfsRoot: String = "/sys", resolvesGateways: Bool = true) {
        self.lookupDestinations = lookupDestinations
        self.receiveBufferBytes = receiveBufferBytes
        self.sysfsRoot = sysfsRoot
        self.resolvesGateways = resolvesGateways
    }
}
