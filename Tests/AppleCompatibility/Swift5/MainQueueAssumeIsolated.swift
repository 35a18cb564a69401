// SPDX-License-Identifier: Apache-2.0
// Pattern: a main-actor class that starts the monitor on the main queue and tells the
// compiler so with MainActor.assumeIsolated (Swift 6 style).
import Foundation
import Network

@MainActor
final class OfflineBannerController {
    private(set) var isBannerVisible = false
    private(set) var bannerText = ""
    private let monitor = NWPathMonitor()

    func start() {
        monitor.pathUpdateHandler = { [weak self] path in
            MainActor.assumeIsolated {
                self?.update(with: path)
            }
        }
        monitor.start(queue: .main)
    }

    func stop() {
        monitor.cancel()
    }

    private func update(with path: NWPath) {
        isBannerVisible = path.status != .satisfied
        bannerText = isBannerVisible ? "You are offline. We'll retry when the connection is back." : ""
    }
}
