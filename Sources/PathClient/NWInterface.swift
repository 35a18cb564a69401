// SPDX-License-Identifier: Apache-2.0
import PathModel

/// An interface a path can use, as Apple's Network framework names it.
public struct NWInterface: Hashable, Sendable, CustomDebugStringConvertible {
    /// The kind of medium, as `NWInterface.InterfaceType` on Apple platforms: the same
    /// five cases and conformances, so that an app's own extensions (`CaseIterable`,
    /// `CustomStringConvertible`) compile here as they do there.
    public enum InterfaceType: Hashable, Sendable {
        /// Anything else: tunnels (WireGuard, tun, PPP), veth, bridges.
        case other
        /// Wi-Fi (the kernel's wlan devices).
        case wifi
        /// Mobile broadband (wwan devices).
        case cellular
        /// Wired Ethernet.
        case wiredEthernet
        /// The loopback interface.
        case loopback
    }

    /// The kernel's name ("eth0").
    public let name: String
    /// The kind of medium.
    public let type: InterfaceType
    /// The kernel's interface index.
    public let index: Int
    /// The Linux form (index type, and whether it is a tunnel).
    public let interface: Interface

    /// The Apple form of one of pathd's interfaces.
    public init(_ interface: Interface) {
        self.interface = interface
        name = interface.name
        type = InterfaceType(interface.type)
        index = Int(interface.index.rawValue)
    }

    /// The name, as Apple's prints it.
    public var debugDescription: String { name }
}

extension NWInterface.InterfaceType {
    /// The Apple name of a Linux interface type (the same five kinds; a type a newer
    /// pathd sent that this version does not know is `.other`).
    public init(_ type: InterfaceType) {
        switch type {
        case .wifi: self = .wifi
        case .cellular: self = .cellular
        case .wiredEthernet: self = .wiredEthernet
        case .loopback: self = .loopback
        case .other, .unrecognized: self = .other
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
