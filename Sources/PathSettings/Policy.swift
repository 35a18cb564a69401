// SPDX-License-Identifier: Apache-2.0
import PathModel

/// One link's settings, after every `[Interface]` section that matches it applied (see
/// `Policy`): what they state, and the built-in defaults for the rest.
public struct LinkSettings: Hashable, Sendable {
    /// What the matching sections state, the later section's value where two state one.
    public let stated: InterfaceSettings.Stated
    /// The type the path reports: the last `SetType=`, else the detected type.
    public let type: InterfaceType
    /// What the type alone says (`Policy.expensiveTypes`, `constrainedTypes`): the last
    /// word on cost (`Policy.cost`).
    public let typeIsExpensive: Bool
    public let typeIsConstrained: Bool
    /// When the only candidate path is through such an interface that is not up, the
    /// path is `requiresConnection`.
    public var isOnDemand: Bool { stated.isOnDemand ?? false }
    public var isIgnored: Bool { stated.isIgnored ?? false }

    init(stated: InterfaceSettings.Stated, type: InterfaceType, typeIsExpensive: Bool, typeIsConstrained: Bool) {
        self.stated = stated
        self.type = type
        self.typeIsExpensive = typeIsExpensive
        self.typeIsConstrained = typeIsConstrained
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
/// 3. a flag no rule stated comes from the hints about the link's network, else the
///    type defaults below, looked up by the effective type: `SetType=cellular` on a
///    tethered phone's USB link makes it expensive unless a rule says `Expensive=no`;
/// 4. above all of these, the first `[Network]` section matching the link's identified
///    network (`network(for:)`) decides what it states (`cost`).
public struct Policy: Hashable, Sendable {
    /// The parts, in one copy-on-write box: every evaluation copies the policy, and five
    /// collections retained and released one by one, cold, came before each change's
    /// line. Internal only so that the readers below can be inlined where the evaluation
    /// reads them.
    @usableFromInline struct Parts: Hashable, Sendable {
        @usableFromInline var expensiveTypes: Set<InterfaceType>
        @usableFromInline var constrainedTypes: Set<InterfaceType>
        @usableFromInline var rules: [InterfaceSettings]
        @usableFromInline var networks: [NetworkSettings]
        @usableFromInline var networkKey: NetworkKey?
    }

    @usableFromInline var parts: CopyOnWrite<Parts>

    /// Types expensive unless a rule says otherwise; cellular, as on Apple platforms.
    public var expensiveTypes: Set<InterfaceType> {
        @inlinable _read { yield parts.value.expensiveTypes }
        _modify { yield &parts.value.expensiveTypes }
    }
    /// Types constrained unless a rule says otherwise.
    public var constrainedTypes: Set<InterfaceType> {
        @inlinable _read { yield parts.value.constrainedTypes }
        _modify { yield &parts.value.constrainedTypes }
    }
    /// The `[Interface]` sections of the configuration, in file order.
    public var rules: [InterfaceSettings] {
        @inlinable _read { yield parts.value.rules }
        _modify { yield &parts.value.rules }
    }
    /// The `[Network]` sections of the configuration, in file order.
    public var networks: [NetworkSettings] {
        @inlinable _read { yield parts.value.networks }
        _modify { yield &parts.value.networks }
    }
    /// The key network IDs are computed with (`NetworkKey`), read from the machine ID or
    /// `NetworkKeyFile=` with the files (`ConfigurationFiles.load`); nil identifies no
    /// network (no interface then has one).
    public var networkKey: NetworkKey? {
        @inlinable _read { yield parts.value.networkKey }
        _modify { yield &parts.value.networkKey }
    }

    public init(expensiveTypes: Set<InterfaceType> = [.cellular], constrainedTypes: Set<InterfaceType> = [],
                rules: [InterfaceSettings] = [], networks: [NetworkSettings] = [], networkKey: NetworkKey? = nil) {
        parts = CopyOnWrite(Parts(expensiveTypes: expensiveTypes, constrainedTypes: constrainedTypes, rules: rules,
                                  networks: networks, networkKey: networkKey))
    }

    /// The built-in default.
    public static let standard = Policy()

    public func settings(for link: Link) -> LinkSettings {
        // What the matching sections state, laid over each other; a section is built
        // only when one matches: every evaluation asks for every link. Not an optional
        // section: its every copy and destruction, nil included, goes through the
        // runtime's generic functions for its six match lists, cold before the line.
        var stated = InterfaceSettings.Stated()
        for rule in rules where rule.match.matches(link) {
            var merged = InterfaceSettings(stated: stated)
            for key in InterfaceSettings.keys { key.overlay?(&merged, rule) }
            stated = merged.stated
        }
        let type = stated.setType ?? link.type
        return LinkSettings(stated: stated, type: type, typeIsExpensive: expensiveTypes.contains(type),
                            typeIsConstrained: constrainedTypes.contains(type))
    }

    /// The `[Network]` section of an identified network: the first that matches it.
    public func network(for candidate: NetworkCandidate) -> NetworkSettings? {
        networks.first { $0.match.matches(candidate) }
    }

    /// The first network `criteria` name (`Criteria.namedNetworks`) that is neither a
    /// `[Network] Name=` of this policy nor an ID: nil when there is none. pathd refuses a
    /// request naming one (`unknownNetwork`): a typo would otherwise never match, and a
    /// job waiting for it would wait for ever.
    public func unknownNetwork(in criteria: Criteria) -> String? {
        criteria.namedNetworks.first { reference in
            NetworkID(reference) == nil && !networks.contains { $0.stated.name == reference }
        }
    }

    /// What traffic over a link costs, by precedence (`LinkCost.decide`): its network's
    /// section, its `[Interface]` sections, the hints about its network, its type.
    public func cost(of settings: LinkSettings, network: NetworkSettings?, hints: NetworkHints) -> LinkCost {
        let expensive = LinkCost.decide(network: network?.stated.isExpensive, interface: settings.stated.isExpensive,
                                        hint: hints.isExpensive, typeDefault: settings.typeIsExpensive)
        let constrained = LinkCost.decide(network: network?.stated.isConstrained,
                                          interface: settings.stated.isConstrained, hint: nil,
                                          typeDefault: settings.typeIsConstrained)
        return LinkCost(isExpensive: expensive.value, isExpensiveSetBy: expensive.setBy,
                        isConstrained: constrained.value, isConstrainedSetBy: constrained.setBy)
    }
}
