// SPDX-License-Identifier: Apache-2.0
// Pattern: a small store injected into a UI environment; the monitor's queue is a
// private serial queue, the state changes are published on the main queue.
import Foundation
import Observation
import Network

@Observable
final class NetworkEnvironment {
    var isConnected: Bool = true
    var isConstrained: Bool = false
    var usesCellular: Bool = false

    @ObservationIgnored private var monitor: NWPathMonitor?

    func startMonitoring() {
        guard monitor == nil else { return }
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in
            DispatchQueue.main.async { [weak self] in
                guard let self = self else { return }
                self.isConnected = path.status == .satisfied
                self.isConstrained = path.isConstrained
                self.usesCellular = path.usesInterfaceType(.cellular)
            }
        }
        monitor.start(queue: DispatchQueue(label: "NetworkEnvironment", qos: .userInitiated))
        self.monitor = monitor
    }

    func stopMonitoring() {
        monitor?.cancel()
        monitor = nil
    }
}
