// SPDX-License-Identifier: Apache-2.0
// Pattern: a library that extends Network's types with the module named, so that its
// own `InterfaceType` (a common name) never clashes: labels, a lookup table keyed by
// `Network.NWInterface.InterfaceType`, one monitor per type.
import Network

public enum InterfaceType: String, Sendable {
    case wifi, cellular, ethernet, other
}

extension Network.NWInterface.InterfaceType {
    var ownType: InterfaceType {
        switch self {
        case .wifi: .wifi
        case .cellular: .cellular
        case .wiredEthernet: .ethernet
        default: .other
        }
    }
}

public final class PerTypeMonitors: @unchecked Sendable {
    private let monitors: [Network.NWInterface.InterfaceType: Network.NWPathMonitor] = [
        .wifi: Network.NWPathMonitor(requiredInterfaceType: .wifi),
        .cellular: Network.NWPathMonitor(requiredInterfaceType: .cellular),
        .wiredEthernet: Network.NWPathMonitor(requiredInterfaceType: .wiredEthernet),
    ]

    public init() {}

    public func start(onChange: @escaping @Sendable (InterfaceType, Bool) -> Void) {
        for (type, monitor) in monitors {
            let own = type.ownType
            monitor.pathUpdateHandler = { path in onChange(own, path.status == .satisfied) }
            monitor.start(queue: DispatchQueue(label: "per-type.\(own.rawValue)"))
        }
    }

    public func stop() {
        for monitor in monitors.values { monitor.cancel() }
    }
}
