// SPDX-License-Identifier: Apache-2.0
// Pattern: handlers that are not closure literals: a stored closure value and a
// method reference (Swift 5 code; neither is Sendable).
import Foundation
import Network

final class NetworkEventRecorder {
    private let monitor = NWPathMonitor()
    private(set) var events: [String] = []

    func startWithMethodReference() {
        monitor.pathUpdateHandler = handlePathUpdate
        monitor.start(queue: .main)
    }

    func startWithStoredClosure() {
        let handler: (NWPath) -> Void = { [weak self] path in
            self?.events.append("stored: \(path.status)")
        }
        monitor.pathUpdateHandler = handler
        monitor.start(queue: .main)
    }

    private func handlePathUpdate(_ path: NWPath) {
        events.append("method: \(path.status)")
    }
}
