// SPDX-License-Identifier: Apache-2.0
/// The answer to "through what would traffic to this address go right now, and is that
/// usable?" (the `route` request, docs/PROTOCOL.md): the kernel's route lookup for one
/// destination, judged by the rules that judge a path (`PathEvaluator.route`).
public struct RouteReport: Hashable, Sendable {
    /// The address asked about.
    public var destination: IPAddress
    /// `satisfied`, `unsatisfied` or `requiresConnection`, as for a path.
    public var status: PathStatus
    /// Why traffic to the destination cannot go; nil when it can.
    public var unsatisfiedReason: UnsatisfiedReason?
    /// The interface the reason is about ("no carrier on eth0"), when there is one.
    public var reasonInterface: String?
    /// The interface the route leaves by (the on-demand interface that would come up,
    /// for `requiresConnection`; loopback for a destination on this host); nil when no
    /// route exists or the winning route rejects traffic.
    public var interface: Interface?
    /// The source address the kernel would use (RTA_PREFSRC); nil when it names none.
    public var source: IPAddress?
    /// The next hop; nil when the destination is on-link.
    public var gateway: IPAddress?
    /// The routing table whose route answered (RTA_TABLE), when the kernel named one.
    public var table: UInt32?
    /// The policy of the interface used; a tunnel also takes on its underlay's cost.
    public var isExpensive: Bool
    public var isConstrained: Bool

    public init(destination: IPAddress, status: PathStatus, unsatisfiedReason: UnsatisfiedReason? = nil,
                reasonInterface: String? = nil, interface: Interface? = nil, source: IPAddress? = nil,
                gateway: IPAddress? = nil, table: UInt32? = nil, isExpensive: Bool = false,
                isConstrained: Bool = false) {
        self.destination = destination
        self.status = status
        self.unsatisfiedReason = unsatisfiedReason
        self.reasonInterface = reasonInterface
        self.interface = interface
        self.source = source
        self.gateway = gateway
        self.table = table
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    /// Whether traffic to the destination can go now (only `satisfied`).
    public var isUsable: Bool { status == .satisfied }

    /// The reason in words, for a person; nil when satisfied. "No route" names the
    /// destination: a path's words speak of the default route, which is not the question.
    public var reason: String? {
        guard let unsatisfiedReason else { return nil }
        if unsatisfiedReason == .noRoute { return "no route to \(destination)" }
        // A link-scoped destination goes through its zone's link only: that link is
        // gone or down (a watched route's zone that names no interface any more).
        if unsatisfiedReason == .noInterface, let zone = reasonInterface, destination.isLinkScoped {
            return "\(zone) is gone or down (the zone of \(destination)%\(zone))"
        }
        return unsatisfiedReason.explanation(interface: reasonInterface)
    }

    /// One readable line: "satisfied via eth0 (gateway 192.0.2.1, source 192.0.2.2)",
    /// "unsatisfied: no route to 198.51.100.7".
    public var summary: String {
        switch status {
        case .satisfied, .requiresConnection, .unrecognized:
            var details: [String] = []
            if let gateway { details.append("gateway \(gateway)") }
            if let source { details.append("source \(source)") }
            if isExpensive { details.append("expensive") }
            if isConstrained { details.append("constrained") }
            let via = interface.map { " via \($0.name)" } ?? ""
            let detail = details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"
            return "\(status.rawValue)\(via)\(detail)"
        case .unsatisfied:
            return "unsatisfied: \(reason ?? "unknown reason")"
        }
    }
}
