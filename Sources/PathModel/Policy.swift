/// The administrator's settings for one interface.
public struct InterfaceSettings: Hashable, Sendable {
    public var isExpensive: Bool
    public var isConstrained: Bool

    public init(isExpensive: Bool = false, isConstrained: Bool = false) {
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
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
}
