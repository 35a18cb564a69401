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
        case notAvailable
        case cellularDenied
        case wifiDenied
        case localNetworkDenied
        case vpnInactive
    }

    /// pathd's path this one maps.
    public let path: Path

    public init(_ path: Path) {
        self.path = path
    }

    /// What `currentPath` is before the first answer: as on Apple platforms, an
    /// unsatisfied path with no interfaces (`.notAvailable`). It says nothing about the
    /// network; `PathMonitor.State.unknown` says so plainly.
    public static let unknown = NWPath(Path(status: .unsatisfied))

    public var status: Status {
        switch path.status {
        case .satisfied: .satisfied
        case .unsatisfied: .unsatisfied
        case .requiresConnection: .requiresConnection
        }
    }

    /// Why the path is unsatisfied, in Apple's words (`.notAvailable` when satisfied).
    public var unsatisfiedReason: UnsatisfiedReason {
        path.unsatisfiedReason == .routeRejects ? .vpnInactive : .notAvailable
    }

    /// Why the path is unsatisfied, precisely (`noCarrier`, `noAddress`, …); nil when it is not.
    public var linuxUnsatisfiedReason: PathModel.UnsatisfiedReason? { path.unsatisfiedReason }

    /// The interfaces that can carry traffic, the one the kernel would use first.
    public var availableInterfaces: [NWInterface] { path.availableInterfaces.map(NWInterface.init) }

    public var isExpensive: Bool { path.isExpensive }
    public var isConstrained: Bool { path.isConstrained }
    /// Newer Apple platforms' "ultra constrained" (satellite) paths; Linux has none.
    public var isUltraConstrained: Bool { false }
    public var supportsIPv4: Bool { path.supportsIPv4 }
    public var supportsIPv6: Bool { path.supportsIPv6 }
    public var supportsDNS: Bool { path.supportsDNS }

    /// The gateways of the routes in use, as `.hostPort(host:port:)` with port 0.
    public var gateways: [NWEndpoint] { path.gateways.map(NWEndpoint.init(gateway:)) }

    /// A path monitor's path has no local or remote endpoint (only a connection's has).
    public var localEndpoint: NWEndpoint? { nil }
    public var remoteEndpoint: NWEndpoint? { nil }

    /// Whether the path uses an interface of `type`: the interface the kernel would use
    /// first, and when that is a tunnel (a VPN), its underlay too, as on Apple
    /// platforms (a VPN over Wi-Fi uses `.wifi` and `.other`).
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool {
        guard let first = path.availableInterfaces.first, path.status != .unsatisfied else { return false }
        if NWInterface.InterfaceType(first.type) == type { return true }
        guard first.isTunnel, let underlay = path.availableInterfaces.dropFirst().first(where: { !$0.isTunnel }) else {
            return false
        }
        return NWInterface.InterfaceType(underlay.type) == type
    }

    public var debugDescription: String { path.summary }
}
