// SPDX-License-Identifier: Apache-2.0
// Pattern: reading currentPath on demand (no handler at all) and checking which queue
// a monitor was started on.
import Foundation
import Network

struct ConnectivityChecker: Sendable {
    let monitor: NWPathMonitor

    init(monitor: NWPathMonitor = NWPathMonitor()) {
        self.monitor = monitor
        if monitor.queue == nil {
            monitor.start(queue: DispatchQueue(label: "ConnectivityChecker"))
        }
    }

    var isOnline: Bool { monitor.currentPath.status == .satisfied }
    var isOnWiFi: Bool { monitor.currentPath.usesInterfaceType(.wifi) }
    var currentInterfaceNames: [String] { monitor.currentPath.availableInterfaces.map { $0.name } }
    var queueLabel: String { monitor.queue?.label ?? "not started" }

    func assertStarted() {
        precondition(monitor.queue != nil, "start the monitor before reading currentPath")
    }
}

func logCurrentPath(of monitor: NWPathMonitor) {
    let path = monitor.currentPath
    print("status=\(path.status) reason=\(path.unsatisfiedReason) interfaces=\(path.availableInterfaces.count)")
}
