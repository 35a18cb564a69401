// SPDX-License-Identifier: Apache-2.0
// Pattern: a VPN client watching the network *under* its tunnel (as WireGuard and
// Tailscale-style apps do): the first interface that is not `.other`, its name and
// type, and whether the path still goes through a tunnel at all.
import Foundation
import Network

// @unchecked Sendable: its mutable state is touched on `queue` only.
final class UnderlyingNetworkObserver: @unchecked Sendable {
    struct UnderlyingNetwork: Equatable, Sendable {
        let interfaceName: String
        let interfaceType: NWInterface.InterfaceType
        let isExpensive: Bool
    }

    // Touched on `queue` only.
    private var lastUnderlying: UnderlyingNetwork?
    private let queue = DispatchQueue(label: "com.example.vpn.underlying-network")
    private let monitor: NWPathMonitor
    private let onChange: @Sendable (UnderlyingNetwork?) -> Void

    init(onChange: @escaping @Sendable (UnderlyingNetwork?) -> Void) {
        self.onChange = onChange
        monitor = NWPathMonitor(prohibitedInterfaceTypes: [.other])
    }

    func start() {
        monitor.pathUpdateHandler = { [weak self] path in
            self?.handle(path)
        }
        monitor.start(queue: queue)
    }

    func stop() {
        monitor.cancel()
    }

    private func handle(_ path: NWPath) {
        dispatchPrecondition(condition: .onQueue(queue))
        let underlying: UnderlyingNetwork?
        if path.status == .satisfied,
           let interface = path.availableInterfaces.first(where: { $0.type != .other }) {
            underlying = UnderlyingNetwork(interfaceName: interface.name, interfaceType: interface.type,
                                           isExpensive: path.isExpensive)
        } else {
            underlying = nil
        }
        guard underlying != lastUnderlying else { return }
        lastUnderlying = underlying
        onChange(underlying)
    }

    /// Whether the tunnel carries the default path: it shows up as `.other` first.
    static func tunnelIsActive(in path: NWPath) -> Bool {
        guard path.usesInterfaceType(.other) else { return false }
        return path.availableInterfaces.contains { interface in
            interface.type == .other && ["utun", "ipsec", "ppp", "tun", "wg"].contains { interface.name.hasPrefix($0) }
        }
    }
}
