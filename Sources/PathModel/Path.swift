// SPDX-License-Identifier: Apache-2.0
/// Whether a path can carry traffic now, as NWPath.Status defines it.
public enum PathStatus: OpenEnumeration {
    /// A route exists over a usable interface. Nothing more: not that a server answers.
    case satisfied
    /// No usable route; `Path.unsatisfiedReason` says why.
    case unsatisfied
    /// Only an on-demand interface could carry traffic, and it would come up if used.
    case requiresConnection
    /// A status a newer pathd sent. A client treats it as not satisfied (nothing is
    /// promised about it) and shows the name.
    case unrecognized(String)

    public static let allCases: [PathStatus] = [.satisfied, .unsatisfied, .requiresConnection]

    public var rawValue: String {
        switch self {
        case .satisfied: "satisfied"
        case .unsatisfied: "unsatisfied"
        case .requiresConnection: "requiresConnection"
        case .unrecognized(let name): name
        }
    }
}

/// Why a path is unsatisfied; the wire form is the raw value. Open: a newer pathd may
/// send a reason this version does not know (`unrecognized`, docs/PROTOCOL.md).
public enum UnsatisfiedReason: OpenEnumeration {
    /// No interface other than loopback is up.
    case noInterface
    /// The interface the route uses has no carrier (cable out, peer down, not associated).
    case noCarrier
    /// The interface is up but dormant (802.1X authentication or a modem not yet online).
    case dormant
    /// The interface has no usable address of the family (none, still tentative, failed
    /// duplicate detection, or IPv6 link-local only).
    case noAddress
    /// No route covers the destination.
    case noRoute
    /// The winning route rejects traffic (unreachable, blackhole or prohibit: a kill switch).
    case routeRejects
    /// Interfaces exist and work, but the subscription's criteria exclude all of them.
    case interfaceTypeExcluded
    /// The path works but is expensive, and the criteria prohibit expensive paths
    /// (`Criteria.prohibitExpensivePaths`, pathctl's `--not-expensive`).
    case expensiveExcluded
    /// The path works but is constrained, and the criteria prohibit constrained paths
    /// (`Criteria.prohibitConstrainedPaths`, pathctl's `--not-constrained`).
    case constrainedExcluded
    /// The path works but its first interface is not on the network the criteria require
    /// (`Criteria.requiredNetwork`, pathctl's `--network`), or is on one they prohibit
    /// (`prohibitedNetworks`, `--not-network`); a network not yet identified is on none.
    case networkExcluded
    /// The destination is a host name that resolves to no address (a `[Watch]` host's
    /// history entry, its `pathd_route_*` series); never a path's reason.
    case unresolved
    /// A reason a newer pathd sent, by its name.
    case unrecognized(String)

    public static let allCases: [UnsatisfiedReason] = [
        .noInterface, .noCarrier, .dormant, .noAddress, .noRoute, .routeRejects, .interfaceTypeExcluded,
        .expensiveExcluded, .constrainedExcluded, .networkExcluded, .unresolved,
    ]

    public var rawValue: String {
        switch self {
        case .noInterface: "noInterface"
        case .noCarrier: "noCarrier"
        case .dormant: "dormant"
        case .noAddress: "noAddress"
        case .noRoute: "noRoute"
        case .routeRejects: "routeRejects"
        case .interfaceTypeExcluded: "interfaceTypeExcluded"
        case .expensiveExcluded: "expensiveExcluded"
        case .constrainedExcluded: "constrainedExcluded"
        case .networkExcluded: "networkExcluded"
        case .unresolved: "unresolved"
        case .unrecognized(let name): name
        }
    }

    /// A one-line explanation for a person; `interface` names the interface concerned.
    public func explanation(interface: String?) -> String {
        switch self {
        case .noInterface:
            return "no network interface is up"
        case .noCarrier:
            return interface.map { "no carrier on \($0) (cable unplugged or peer down)" } ?? "no interface has carrier"
        case .dormant:
            return interface.map { "\($0) is dormant (waiting for authentication or dial-up)" }
                ?? "the interface is dormant"
        case .noAddress:
            return interface.map { "\($0) has no usable address" } ?? "no interface has a usable address"
        case .noRoute:
            return "no route to the Internet (no default route)"
        case .routeRejects:
            return interface.map { "the route via \($0) rejects traffic" }
                ?? "the route rejects traffic (unreachable, blackhole or prohibit route)"
        case .interfaceTypeExcluded:
            return "only interfaces the criteria exclude are available"
        case .expensiveExcluded:
            return "the path\(interface.map { " via \($0)" } ?? "") is expensive, which the criteria exclude"
        case .constrainedExcluded:
            return "the path\(interface.map { " via \($0)" } ?? "") is constrained, which the criteria exclude"
        case .networkExcluded:
            return "the path\(interface.map { " via \($0)" } ?? "") is not on a network the criteria allow"
        case .unresolved:
            return "the host name resolves to no address"
        case .unrecognized(let name):
            return interface.map { "\(name) on \($0)" } ?? name
        }
    }
}

/// The answer pathd publishes: the NWPath of one set of criteria.
public struct Path: Hashable, Sendable {
    public var status: PathStatus
    public var unsatisfiedReason: UnsatisfiedReason?
    /// The interface the reason is about ("no carrier on eth0"), when there is one.
    public var reasonInterface: String?
    /// The interfaces that can carry traffic, the one the kernel would use first.
    public var availableInterfaces: [Interface]
    public var isExpensive: Bool
    public var isConstrained: Bool
    /// Which rule decided `isExpensive` (`CostSource`): that of the first interface the
    /// path uses that is expensive, else that of its first interface; nil with none.
    public var isExpensiveSetBy: CostSource?
    /// Which rule decided `isConstrained`, as `isExpensiveSetBy`.
    public var isConstrainedSetBy: CostSource?
    /// The network of the path's first interface (`Interface.network`).
    public var network: LinkNetwork? { availableInterfaces.first?.network }
    public var supportsIPv4: Bool
    public var supportsIPv6: Bool
    public var supportsDNS: Bool
    /// The gateways of the routes in use, in the order of `availableInterfaces`.
    public var gateways: [IPAddress]

    public init(status: PathStatus, unsatisfiedReason: UnsatisfiedReason? = nil, reasonInterface: String? = nil,
                availableInterfaces: [Interface] = [], isExpensive: Bool = false, isConstrained: Bool = false,
                isExpensiveSetBy: CostSource? = nil, isConstrainedSetBy: CostSource? = nil,
                supportsIPv4: Bool = false, supportsIPv6: Bool = false, supportsDNS: Bool = false,
                gateways: [IPAddress] = []) {
        self.status = status
        self.unsatisfiedReason = unsatisfiedReason
        self.reasonInterface = reasonInterface
        self.availableInterfaces = availableInterfaces
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.isExpensiveSetBy = isExpensiveSetBy
        self.isConstrainedSetBy = isConstrainedSetBy
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.supportsDNS = supportsDNS
        self.gateways = gateways
    }

    /// One readable line: "satisfied via eth0 (IPv4, IPv6, DNS)", "satisfied via wlan0 on
    /// hotspot (IPv4, expensive)" (the network's configured name) or
    /// "unsatisfied: no carrier on eth0 (cable unplugged or peer down)".
    public var summary: String {
        switch status {
        case .satisfied, .requiresConnection, .unrecognized:
            let names = availableInterfaces.map(\.name).joined(separator: ", ")
            var features: [String] = []
            if supportsIPv4 { features.append("IPv4") }
            if supportsIPv6 { features.append("IPv6") }
            if supportsDNS { features.append("DNS") }
            if isExpensive { features.append("expensive") }
            if isConstrained { features.append("constrained") }
            if network?.state == .pending { features.append("network pending") }
            let on = network?.name.map { " on \($0)" } ?? ""
            let via = names.isEmpty ? "" : " via \(names)\(on)"
            let detail = features.isEmpty ? "" : " (\(features.joined(separator: ", ")))"
            return "\(status.rawValue)\(via)\(detail)"
        case .unsatisfied:
            let why = unsatisfiedReason?.explanation(interface: reasonInterface) ?? "unknown reason"
            return "unsatisfied: \(why)"
        }
    }
}
