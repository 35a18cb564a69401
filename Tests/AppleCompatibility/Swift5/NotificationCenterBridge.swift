// SPDX-License-Identifier: Apache-2.0
// Pattern: re-broadcasting path changes through NotificationCenter for older parts of
// an app, with the path and a flag in userInfo.
import Foundation
import Network

extension Notification.Name {
    static let networkReachabilityDidChange = Notification.Name("NetworkReachabilityDidChange")
}

enum NetworkNotificationKey {
    static let isReachable = "isReachable"
    static let interfaceType = "interfaceType"
}

final class ReachabilityBroadcaster: Sendable {
    private let monitor = NWPathMonitor()

    func start() {
        monitor.pathUpdateHandler = { path in
            let type = path.availableInterfaces.first.map { String(describing: $0.type) } ?? "none"
            DispatchQueue.main.async {
                NotificationCenter.default.post(
                    name: .networkReachabilityDidChange,
                    object: nil,
                    userInfo: [
                        NetworkNotificationKey.isReachable: path.status == .satisfied,
                        NetworkNotificationKey.interfaceType: type,
                    ]
                )
            }
        }
        monitor.start(queue: .global(qos: .background))
    }

    func stop() {
        monitor.cancel()
    }
}
