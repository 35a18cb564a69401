// SPDX-License-Identifier: Apache-2.0
// Pattern: one monitor per interface type (Wi-Fi, cellular, Ethernet) kept in a
// dictionary keyed by NWInterface.InterfaceType, each reporting availability.
import Foundation
import Network

// @unchecked Sendable: its mutable state is touched on `queue` only.
final class InterfaceAvailability: @unchecked Sendable {
    private let queue = DispatchQueue(label: "InterfaceAvailability")
    private var monitors: [NWInterface.InterfaceType: NWPathMonitor] = [:]
    // Touched on `queue` only.
    private var available: Set<NWInterface.InterfaceType> = []
    private let onChange: @Sendable (Set<NWInterface.InterfaceType>) -> Void

    init(types: [NWInterface.InterfaceType] = [.wifi, .cellular, .wiredEthernet],
         onChange: @escaping @Sendable (Set<NWInterface.InterfaceType>) -> Void) {
        self.onChange = onChange
        for type in types {
            monitors[type] = NWPathMonitor(requiredInterfaceType: type)
        }
    }

    func start() {
        for (type, monitor) in monitors {
            monitor.pathUpdateHandler = { [weak self] path in
                self?.update(type, isAvailable: path.status == .satisfied)
            }
            monitor.start(queue: queue)
        }
    }

    func stop() {
        monitors.values.forEach { $0.cancel() }
    }

    var wifiMonitorPath: NWPath? {
        monitors[.wifi]?.currentPath
    }

    private func update(_ type: NWInterface.InterfaceType, isAvailable: Bool) {
        let before = available
        if isAvailable { available.insert(type) } else { available.remove(type) }
        if available != before { onChange(available) }
    }
}
