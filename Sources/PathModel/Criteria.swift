// SPDX-License-Identifier: Apache-2.0
/// What a subscriber asks about, as NWPathMonitor's initialisers define it.
///
/// `requiredInterfaceType: .wifi` asks "is there a path over wifi", not "is the host
/// online". The evaluator answers as if only the allowed interfaces existed.
public struct Criteria: Hashable, Sendable {
    public var requiredInterfaceType: InterfaceType?
    public var prohibitedInterfaceTypes: Set<InterfaceType>

    public init(requiredInterfaceType: InterfaceType? = nil, prohibitedInterfaceTypes: Set<InterfaceType> = []) {
        self.requiredInterfaceType = requiredInterfaceType
        self.prohibitedInterfaceTypes = prohibitedInterfaceTypes
    }

    /// No restriction: the host's default path.
    public static let any = Criteria()

    public func allows(_ type: InterfaceType) -> Bool {
        if let required = requiredInterfaceType, required != type { return false }
        return !prohibitedInterfaceTypes.contains(type)
    }
}
