/// The kind of medium an interface is, as NWInterface.InterfaceType defines it.
///
/// A type says nothing about cost: "expensive" and "constrained" are policy (see
/// `Policy`), and cellular is only expensive by default.
public enum InterfaceType: String, Hashable, Sendable, CaseIterable {
    case wifi
    case cellular
    case wiredEthernet
    case loopback
    case other
}

/// One interface as a path lists it.
public struct Interface: Hashable, Sendable {
    public var name: String
    public var index: InterfaceIndex
    public var type: InterfaceType

    public init(name: String, index: InterfaceIndex, type: InterfaceType) {
        self.name = name
        self.index = index
        self.type = type
    }
}
