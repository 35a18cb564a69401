// SPDX-License-Identifier: Apache-2.0
import PathModel

/// One link's settings, after every `[Interface]` section that matches it applied (see
/// `Policy`): what they state, and the built-in defaults for the rest.
public struct LinkSettings: Hashable, Sendable {
    /// What the matching sections state, the later section's value where two state one.
    public let stated: InterfaceSettings.Stated
    /// The type the path reports: the last `SetType=`, else the detected type.
    public let type: InterfaceType
    public let isExpensive: Bool
    public let isConstrained: Bool
    /// When the only candidate path is through such an interface that is not up, the
    /// path is `requiresConnection`.
    public var isOnDemand: Bool { stated.isOnDemand ?? false }
    public var isIgnored: Bool { stated.isIgnored ?? false }

    init(stated: InterfaceSettings.Stated, detectedType: InterfaceType, policy: Policy) {
        self.stated = stated
        type = stated.setType ?? detectedType
        isExpensive = stated.isExpensive ?? policy.expensiveTypes.contains(type)
        isConstrained = stated.isConstrained ?? policy.constrainedTypes.contains(type)
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
    public var rules: [InterfaceSettings]

    public init(expensiveTypes: Set<InterfaceType> = [.cellular], constrainedTypes: Set<InterfaceType> = [],
                rules: [InterfaceSettings] = []) {
        self.expensiveTypes = expensiveTypes
        self.constrainedTypes = constrainedTypes
        self.rules = rules
    }

    /// The built-in default.
    public static let standard = Policy()

    public func settings(for link: Link) -> LinkSettings {
        var merged = InterfaceSettings()
        for rule in rules where rule.match.matches(link) {
            for key in InterfaceSettings.keys { key.overlay?(&merged, rule) }
        }
        return LinkSettings(stated: merged.stated, detectedType: link.type, policy: self)
    }
}
