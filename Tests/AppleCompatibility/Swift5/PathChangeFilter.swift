// SPDX-License-Identifier: Apache-2.0
// Pattern: de-duplicating paths with NWPath's Equatable before doing work (Swift 5
// class state mutated from the handler on the monitor's queue).
import Foundation
import Network

final class PathChangeFilter {
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "PathChangeFilter")
    private var lastPath: NWPath?
    var onChange: ((NWPath) -> Void)?
    var onStatusChange: ((NWPath.Status) -> Void)?
    private(set) var changeCount = 0

    func start() {
        monitor.pathUpdateHandler = { [unowned self] path in
            guard path != self.lastPath else { return }
            if self.lastPath?.status != path.status {
                self.onStatusChange?(path.status)
            }
            self.lastPath = path
            self.changeCount += 1
            self.onChange?(path)
        }
        monitor.start(queue: queue)
    }

    func stop() {
        monitor.pathUpdateHandler = nil
        monitor.cancel()
    }
}
