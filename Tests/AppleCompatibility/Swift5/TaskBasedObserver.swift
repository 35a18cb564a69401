// SPDX-License-Identifier: Apache-2.0
// Pattern: a long-lived Task iterating the monitor (iOS 17), cancelled by its owner.
import Foundation
import Network

@available(iOS 17.0, macOS 14.0, *)
@MainActor
final class NetworkObserverTask {
    private var task: Task<Void, Never>?
    private(set) var lastStatus: NWPath.Status?
    var onStatusChange: ((NWPath.Status) -> Void)?

    func start() {
        task?.cancel()
        task = Task { [weak self] in
            let monitor = NWPathMonitor()
            for await path in monitor {
                guard let self, !Task.isCancelled else { break }
                if self.lastStatus != path.status {
                    self.lastStatus = path.status
                    self.onStatusChange?(path.status)
                }
            }
            monitor.cancel()
        }
    }

    func stop() {
        task?.cancel()
        task = nil
    }
}
