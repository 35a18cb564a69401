import PathModel

/// An interface a path can use, as Apple's Network framework names it.
public struct NWInterface: Hashable, Sendable, CustomDebugStringConvertible {
    /// The kind of medium, as `NWInterface.InterfaceType` on Apple platforms.
    public enum InterfaceType: Hashable, Sendable, CaseIterable {
        /// Anything else: tunnels (WireGuard, tun, PPP), veth, bridges.
        case other
        case wifi
        case cellular
        case wiredEthernet
        case loopback
    }

    /// The kernel's name ("eth0").
    public let name: String
    public let type: InterfaceType
    /// The kernel's interface index.
    public let index: Int
    /// The Linux form (index type, and whether it is a tunnel).
    public let interface: Interface

    public init(_ interface: Interface) {
        self.interface = interface
        name = interface.name
        type = InterfaceType(interface.type)
        index = Int(interface.index.rawValue)
    }

    public var debugDescription: String { name }
}

extension NWInterface.InterfaceType {
    /// The Apple name of a Linux interface type (the same five kinds).
    public init(_ type: InterfaceType) {
        switch type {
        case .wifi: self = .wifi
        case .cellular: self = .cellular
        case .wiredEthernet: self = .wiredEthernet
        case .loopback: self = .loopback
        case .other: self = .other
        }
    }

    /// The Linux name of the type.
    public var linuxType: InterfaceType {
        switch self {
        case .wifi: .wifi
        case .cellular: .cellular
        case .wiredEthernet: .wiredEthernet
        case .loopback: .loopback
        case .other: .other
        }
    }
}
