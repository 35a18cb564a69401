// SPDX-License-Identifier: Apache-2.0
/// What a subscriber asks about: which interfaces count, as NWPathMonitor's initialisers
/// define it, and conditions on the path itself, as NWParameters' `prohibitExpensivePaths`
/// and `prohibitConstrainedPaths` name them.
///
/// The two kinds differ in what they judge. `requiredInterfaceType: .wifi` asks "is
/// there a path over wifi", not "is the host online": the evaluator answers as if only
/// the allowed interfaces existed. A condition judges the path those interfaces give,
/// the one the subscriber's traffic would take: `prohibitExpensivePaths` makes an
/// expensive path unsatisfied (`UnsatisfiedReason.expensiveExcluded`), it does not look
/// for a free interface the traffic would not use (docs/PROTOCOL.md, "Criteria"). The
/// network conditions judge the network of the path's first interface the same way:
/// a network is named by its `[Network] Name=` or its ID (`LinkNetwork.isKnown(as:)`),
/// and only an identified network is on one; a pending one is on none yet.
public struct Criteria: Hashable, Sendable {
    public var requiredInterfaceType: InterfaceType?
    public var prohibitedInterfaceTypes: Set<InterfaceType>
    /// An expensive path (the policy's `Expensive=`: cellular by default, a tunnel over
    /// one too) does not count.
    public var prohibitExpensivePaths: Bool
    /// A constrained path (the policy's `Constrained=`) does not count.
    public var prohibitConstrainedPaths: Bool
    /// The path counts only while its first interface is on this network (pathctl's
    /// `--network`): a `[Network] Name=` or an ID.
    public var requiredNetwork: String?
    /// The path does not count while its first interface is on one of these networks
    /// (pathctl's `--not-network`).
    public var prohibitedNetworks: Set<String>

    public init(requiredInterfaceType: InterfaceType? = nil, prohibitedInterfaceTypes: Set<InterfaceType> = [],
                prohibitExpensivePaths: Bool = false, prohibitConstrainedPaths: Bool = false,
                requiredNetwork: String? = nil, prohibitedNetworks: Set<String> = []) {
        self.requiredInterfaceType = requiredInterfaceType
        self.prohibitedInterfaceTypes = prohibitedInterfaceTypes
        self.prohibitExpensivePaths = prohibitExpensivePaths
        self.prohibitConstrainedPaths = prohibitConstrainedPaths
        self.requiredNetwork = requiredNetwork
        self.prohibitedNetworks = prohibitedNetworks
    }

    /// No restriction: the host's default path.
    public static let any = Criteria()

    public func allows(_ type: InterfaceType) -> Bool {
        if let required = requiredInterfaceType, required != type { return false }
        return !prohibitedInterfaceTypes.contains(type)
    }

    /// Whether some interfaces do not count (a required or a prohibited type): the path
    /// is then chosen among the others' own routes, not by the kernel's lookup alone.
    public var restrictsInterfaces: Bool {
        requiredInterfaceType != nil || !prohibitedInterfaceTypes.isEmpty
    }

    /// Whether any network condition is set (`admitsNetwork` then asks about the path's network).
    public var restrictsNetworks: Bool {
        requiredNetwork != nil || !prohibitedNetworks.isEmpty
    }

    /// Every network the criteria name, required first, then the prohibited in order.
    public var namedNetworks: [String] {
        (requiredNetwork.map { [$0] } ?? []) + prohibitedNetworks.sorted()
    }

    /// Whether a path whose first interface is on `network` (nil: none, or no
    /// interface) meets the network conditions: on the required network, if any, and on
    /// none of the prohibited ones. A network not identified is on none of them.
    public func admitsNetwork(_ network: LinkNetwork?) -> Bool {
        if let requiredNetwork, network?.isKnown(as: requiredNetwork) != true { return false }
        return !prohibitedNetworks.contains { network?.isKnown(as: $0) == true }
    }
}
