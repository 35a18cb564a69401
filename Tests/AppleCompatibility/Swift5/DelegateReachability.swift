// SPDX-License-Identifier: Apache-2.0
// Pattern: the delegate style of older apps: a weak delegate told on the main queue.
import Foundation
import Network

protocol ReachabilityObserverDelegate: AnyObject {
    func reachabilityChanged(isReachable: Bool, isExpensive: Bool)
}

final class DelegateReachability {
    weak var delegate: ReachabilityObserverDelegate?
    private let monitor: NWPathMonitor
    private let monitorQueue = DispatchQueue(label: "com.example.reachability", attributes: [])

    init(requiredInterfaceType: NWInterface.InterfaceType? = nil) {
        if let requiredInterfaceType = requiredInterfaceType {
            monitor = NWPathMonitor(requiredInterfaceType: requiredInterfaceType)
        } else {
            monitor = NWPathMonitor()
        }
        monitor.pathUpdateHandler = { [weak self] path in
            DispatchQueue.main.async {
                self?.delegate?.reachabilityChanged(isReachable: path.status == .satisfied,
                                                    isExpensive: path.isExpensive)
            }
        }
    }

    func startNotifier() {
        monitor.start(queue: monitorQueue)
    }

    func stopNotifier() {
        monitor.cancel()
    }

    deinit {
        stopNotifier()
    }
}
