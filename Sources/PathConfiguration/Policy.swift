import PathModel

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

    /// The type the path reports for `link`: the administrator's override, else detected.
    public func type(of link: Link) -> InterfaceType {
        typeOverride ?? link.type
    }
}

/// Cost policy: which interfaces are expensive or constrained, which are on demand or
/// ignored, and which report another type. Not an interface type and never a reason to
/// call a path offline.
///
/// How a link's settings come about, in order:
/// 1. every `[Interface]` rule whose match admits the link applies, in order, and a
///    later rule's stated setting overrides an earlier one's (`Type=` matches the
///    detected type, so a `SetType=` never changes which rules match);
/// 2. the effective type is the last `SetType=`, else the detected type;
/// 3. a flag no rule stated comes from the type defaults below, looked up by the
///    effective type: `SetType=cellular` on a tethered phone's USB link makes it
///    expensive unless a rule says `Expensive=no`.
public struct Policy: Hashable, Sendable {
    /// Types expensive unless a rule says otherwise; cellular, as on Apple platforms.
    public var expensiveTypes: Set<InterfaceType>
    /// Types constrained unless a rule says otherwise.
    public var constrainedTypes: Set<InterfaceType>
    /// The `[Interface]` sections of the configuration, in file order.
    public var rules: [InterfaceRule]

    public init(expensiveTypes: Set<InterfaceType> = [.cellular], constrainedTypes: Set<InterfaceType> = [],
                rules: [InterfaceRule] = []) {
        self.expensiveTypes = expensiveTypes
        self.constrainedTypes = constrainedTypes
        self.rules = rules
    }

    /// The built-in default.
    public static let standard = Policy()

    public func settings(for link: Link) -> InterfaceSettings {
        var expensive: Bool?
        var constrained: Bool?
        var setType: InterfaceType?
        var onDemand: Bool?
        var ignored: Bool?
        for rule in rules where rule.match.matches(link) {
            expensive = rule.isExpensive ?? expensive
            constrained = rule.isConstrained ?? constrained
            setType = rule.setType ?? setType
            onDemand = rule.isOnDemand ?? onDemand
            ignored = rule.isIgnored ?? ignored
        }
        let type = setType ?? link.type
        return InterfaceSettings(isExpensive: expensive ?? expensiveTypes.contains(type),
                                 isConstrained: constrained ?? constrainedTypes.contains(type),
                                 typeOverride: setType, isOnDemand: onDemand ?? false, isIgnored: ignored ?? false)
    }
}
