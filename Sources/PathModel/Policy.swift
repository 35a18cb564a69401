/// The administrator's settings for one interface, after every matching rule applied.
public struct InterfaceSettings: Hashable, Sendable {
    public var isExpensive: Bool
    public var isConstrained: Bool
    /// `SetType=`: the type to report instead of the detected one.
    public var typeOverride: InterfaceType?
    /// `OnDemand=`: comes up when traffic needs it (dial-on-demand PPP). When the only
    /// candidate path is through such an interface that is not up, the path is
    /// `requiresConnection`.
    public var isOnDemand: Bool
    /// `Ignore=`: never a path, never listed.
    public var isIgnored: Bool

    public init(isExpensive: Bool = false, isConstrained: Bool = false, typeOverride: InterfaceType? = nil,
                isOnDemand: Bool = false, isIgnored: Bool = false) {
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.typeOverride = typeOverride
        self.isOnDemand = isOnDemand
        self.isIgnored = isIgnored
    }
}

/// Cost policy: which interfaces are expensive or constrained. Not an interface type
/// and never a reason to call a path offline.
public struct Policy: Hashable, Sendable {
    /// Types expensive unless said otherwise; cellular, as on Apple platforms.
    public var expensiveTypes: Set<InterfaceType>
    /// Types constrained unless said otherwise.
    public var constrainedTypes: Set<InterfaceType>

    public init(expensiveTypes: Set<InterfaceType> = [.cellular], constrainedTypes: Set<InterfaceType> = []) {
        self.expensiveTypes = expensiveTypes
        self.constrainedTypes = constrainedTypes
    }

    /// The built-in default.
    public static let standard = Policy()

    public func settings(for link: Link) -> InterfaceSettings {
        InterfaceSettings(isExpensive: expensiveTypes.contains(link.type),
                          isConstrained: constrainedTypes.contains(link.type))
    }

    /// The type the path reports for a link: the administrator's override, else detected.
    public func effectiveType(of link: Link) -> InterfaceType {
        settings(for: link).typeOverride ?? link.type
    }
}
