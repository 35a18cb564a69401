// SPDX-License-Identifier: Apache-2.0
// Pattern: an Observation (@Observable) view model as SwiftUI apps write it in
// Swift 5 mode: weak self captured by the handler, hop to the main queue.
import Foundation
import Observation
import Network

@Observable
final class NetworkStatusViewModel {
    var isOnline = true
    var interfaceName: String?
    var isExpensive = false

    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "NetworkStatusViewModel")

    init() {
        monitor.pathUpdateHandler = { [weak self] path in
            DispatchQueue.main.async {
                self?.isOnline = path.status == .satisfied
                self?.interfaceName = path.availableInterfaces.first?.name
                self?.isExpensive = path.isExpensive
            }
        }
        monitor.start(queue: queue)
    }

    deinit {
        monitor.cancel()
    }

    var statusText: String {
        isOnline ? "Online via \(interfaceName ?? "unknown interface")" : "Offline"
    }
}
