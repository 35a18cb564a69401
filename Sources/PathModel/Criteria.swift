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
/// for a free interface the traffic would not use (docs/PROTOCOL.md, "Criteria").
public struct Criteria: Hashable, Sendable {
    public var requiredInterfaceType: InterfaceType?
    public var prohibitedInterfaceTypes: Set<InterfaceType>
    /// An expensive path (the policy's `Expensive=`: cellular by default, a tunnel over
    /// one too) does not count.
    public var prohibitExpensivePaths: Bool
    /// A constrained path (the policy's `Constrained=`) does not count.
    public var prohibitConstrainedPaths: Bool

    public init(requiredInterfaceType: InterfaceType? = nil, prohibitedInterfaceTypes: Set<InterfaceType> = [],
                prohibitExpensivePaths: Bool = false, prohibitConstrainedPaths: Bool = false) {
        self.requiredInterfaceType = requiredInterfaceType
        self.prohibitedInterfaceTypes = prohibitedInterfaceTypes
        self.prohibitExpensivePaths = prohibitExpensivePaths
        self.prohibitConstrainedPaths = prohibitConstrainedPaths
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
}
