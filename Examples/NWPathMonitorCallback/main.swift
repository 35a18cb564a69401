// SPDX-License-Identifier: Apache-2.0
import Network
import Dispatch
let monitor = NWPathMonitor()
monitor.pathUpdateHandler = { path in
    switch path.status {
    case .satisfied: print("online", path.isExpensive, path.isConstrained)
    case .unsatisfied: print("offline", String(describing: path.unsatisfiedReason))
    case .requiresConnection: print("requires connection")
    @unknown default: print("unknown")
    }
    for interface in path.availableInterfaces { print(interface.name, interface.type, interface.index) }
    print(path.usesInterfaceType(.wifi), path.supportsIPv4, path.supportsIPv6, path.supportsDNS, path.gateways.count)
}
monitor.start(queue: DispatchQueue(label: "net"))
let wifiOnly = NWPathMonitor(requiredInterfaceType: .wifi)
let noCellular = NWPathMonitor(prohibitedInterfaceTypes: [.cellular])
_ = (wifiOnly.currentPath, noCellular.queue)
dispatchMain()
