// SPDX-License-Identifier: Apache-2.0
import PathModel

/// A network path, as Apple's Network framework names it: a thin mapping of pathd's
/// `Path` (kept in `path`), never a second evaluation.
public struct NWPath: Equatable, Sendable, CustomDebugStringConvertible {
    /// Whether the path can carry traffic (Apple's `NWPath.Status`).
    public enum Status: Hashable, Sendable {
        /// A route exists over a usable interface. Nothing more: not that a server answers.
        case satisfied
        /// No usable route; `unsatisfiedReason` and `linuxUnsatisfiedReason` say why.
        case unsatisfied
        /// Only an on-demand interface could carry traffic; it would come up if used.
        case requiresConnection
    }

    /// Apple's reasons. Linux has no per-app denial of cellular, Wi-Fi or the local
    /// network, so pathd's reasons map as: `routeRejects` (a kill-switch route, as a
    /// VPN that is down leaves) → `.vpnInactive`; every other → `.notAvailable`. The
    /// precise reason is `linuxUnsatisfiedReason`.
    public enum UnsatisfiedReason: Hashable, Sendable {
        /// No usable network (every Linux reason but `routeRejects`), or the path is
        /// satisfied.
        case notAvailable
        /// Apple's per-app cellular denial; Linux has none, so never reported.
        case cellularDenied
        /// Apple's per-app Wi-Fi denial; never reported on Linux.
        case wifiDenied
        /// Apple's local network permission; never reported on Linux.
        case localNetworkDenied
        /// A route rejects traffic, as a VPN's kill switch leaves while its tunnel is down.
        case vpnInactive
    }

    /// How capable the link is (Apple's `NWPath.LinkQuality`, newer platforms), for tuning
    /// the initial values of algorithms that scale with the network, never to gate a
    /// connection.
    public enum LinkQuality: Hashable, Sendable {
        /// No measurement is available: always so on Linux (see `linkQuality`).
        case unknown
        /// The link is barely usable.
        case minimal
        /// The link is usable with limits.
        case moderate
        /// The link is good.
        case good
    }

    /// pathd's path this one maps.
    public let path: Path

    /// The Apple form of one of pathd's paths (also for tests and previews: Apple's
    /// NWPath has no public initializer).
    public init(_ path: Path) {
        self.path = path
    }

    /// What `currentPath` is before the first answer: as on Apple platforms, an
    /// unsatisfied path with no interfaces (`.notAvailable`). It says nothing about the
    /// network; `PathMonitor.State.unknown` says so plainly.
    public static let unknown = NWPath(Path(status: .unsatisfied))

    /// Whether the path can carry traffic. A status a newer pathd sent that this
    /// version does not know is `.unsatisfied`: nothing is promised about it
    /// (`path.status` keeps its name).
    public var status: Status {
        switch path.status {
        case .satisfied: .satisfied
        case .unsatisfied, .unrecognized: .unsatisfied
        case .requiresConnection: .requiresConnection
        }
    }

    /// Why the path is unsatisfied, in Apple's words (`.notAvailable` when satisfied,
    /// and for a reason a newer pathd sent that this version does not know).
    public var unsatisfiedReason: UnsatisfiedReason {
        path.unsatisfiedReason == .routeRejects ? .vpnInactive : .notAvailable
    }

    /// Why the path is unsatisfied, precisely (`noCarrier`, `noAddress`, …); nil when it is not.
    public var linuxUnsatisfiedReason: PathModel.UnsatisfiedReason? { path.unsatisfiedReason }

    /// The interfaces that can carry traffic, the one the kernel would use first.
    public var availableInterfaces: [NWInterface] { path.availableInterfaces.map(NWInterface.init) }

    /// Traffic costs money or quota (pathd.conf's `Expensive=`; cellular by default).
    public var isExpensive: Bool { path.isExpensive }
    /// Traffic should be sparing (pathd.conf's `Constrained=`: Low Data Mode's counterpart).
    public var isConstrained: Bool { path.isConstrained }
    /// Newer Apple platforms' "ultra constrained" (satellite) paths; Linux has none.
    public var isUltraConstrained: Bool { false }
    /// Always `.unknown`, Apple's value when no measurement is available: pathd measures
    /// no link quality (the kernel's rtnetlink has none to report).
    public var linkQuality: LinkQuality { .unknown }
    /// IPv4 traffic has a usable route, interface and source address.
    public var supportsIPv4: Bool { path.supportsIPv4 }
    /// Likewise for IPv6 (a link-local address alone does not count).
    public var supportsIPv6: Bool { path.supportsIPv6 }
    /// The resolver configuration (resolv.conf) names at least one nameserver.
    public var supportsDNS: Bool { path.supportsDNS }

    /// The gateways of the routes in use, as `.hostPort(host:port:)` with port 0.
    public var gateways: [NWEndpoint] { path.gateways.map(NWEndpoint.init(gateway:)) }

    /// A path monitor's path has no local or remote endpoint (only a connection's has).
    public var localEndpoint: NWEndpoint? { nil }
    /// Always nil, as for a path monitor's path on Apple platforms.
    public var remoteEndpoint: NWEndpoint? { nil }

    /// Whether the path uses an interface of `type`: the interface the kernel would use
    /// first, and when that is a tunnel (a VPN), its underlay too, as on Apple
    /// platforms (a VPN over Wi-Fi uses `.wifi` and `.other`).
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool {
        guard let first = path.availableInterfaces.first, status != .unsatisfied else { return false }
        if NWInterface.InterfaceType(first.type) == type { return true }
        guard first.isTunnel, let underlay = path.availableInterfaces.dropFirst().first(where: { !$0.isTunnel }) else {
            return false
        }
        return NWInterface.InterfaceType(underlay.type) == type
    }

    /// pathd's one-line summary: "satisfied via eth0 (IPv4, IPv6, DNS)" or
    /// "unsatisfied: no carrier on eth0 (cable unplugged or peer down)".
    public var debugDescription: String { path.summary }
}
