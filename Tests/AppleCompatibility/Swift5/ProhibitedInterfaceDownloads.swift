// SPDX-License-Identifier: Apache-2.0
// Pattern: a download gate that ignores cellular (and falls back to "Wi-Fi only" on
// systems without prohibitedInterfaceTypes).
import Foundation
import Network

final class LargeDownloadGate: Sendable {
    private let monitor: NWPathMonitor

    init() {
        if #available(iOS 14.0, macOS 11.0, *) {
            monitor = NWPathMonitor(prohibitedInterfaceTypes: [.cellular, .loopback])
        } else {
            monitor = NWPathMonitor(requiredInterfaceType: .wifi)
        }
    }

    func start(canDownload: @escaping @Sendable (Bool) -> Void) {
        monitor.pathUpdateHandler = { path in
            canDownload(path.status == .satisfied && !path.isConstrained)
        }
        monitor.start(queue: DispatchQueue(label: "LargeDownloadGate", qos: .background))
    }

    var canDownloadNow: Bool {
        let path = monitor.currentPath
        return path.status == .satisfied && !path.isConstrained
    }

    func stop() {
        monitor.cancel()
    }
}
