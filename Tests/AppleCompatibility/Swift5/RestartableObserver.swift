// SPDX-License-Identifier: Apache-2.0
// Pattern: cancel() is final, so "restart" makes a new monitor each time (Swift 5
// class, optional monitor property).
import Foundation
import Network

final class RestartableNetworkObserver {
    private var monitor: NWPathMonitor?
    private let queue = DispatchQueue(label: "RestartableNetworkObserver")
    private(set) var lastStatus: NWPath.Status?
    var statusChanged: ((NWPath.Status) -> Void)?

    func start() {
        stop()
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self = self, self.lastStatus != path.status else { return }
            self.lastStatus = path.status
            self.statusChanged?(path.status)
        }
        monitor.start(queue: queue)
        self.monitor = monitor
    }

    func stop() {
        monitor?.cancel()
        monitor = nil
    }

    var isRunning: Bool {
        monitor != nil
    }
}
