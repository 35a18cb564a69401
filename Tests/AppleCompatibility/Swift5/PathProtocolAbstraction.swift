// SPDX-License-Identifier: Apache-2.0
// Pattern: abstracting NWPath itself behind a protocol (NWPath has no public
// initializer, so tests fake the path), and a monitor protocol whose handler takes
// the abstraction: Swift 5 code from before the handler became @Sendable.
import Foundation
import Network

public protocol NetworkPathProtocol {
    var status: NWPath.Status { get }
    var isExpensive: Bool { get }
    var isConstrained: Bool { get }
    func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool
}

extension NWPath: NetworkPathProtocol {}

public protocol NetworkPathMonitorProtocol: AnyObject {
    var updateHandler: ((NetworkPathProtocol) -> Void)? { get set }
    func start(queue: DispatchQueue)
    func cancel()
}

extension NWPathMonitor: NetworkPathMonitorProtocol {
    public var updateHandler: ((NetworkPathProtocol) -> Void)? {
        get { nil }
        set { pathUpdateHandler = newValue }
    }
}

struct FakeNetworkPath: NetworkPathProtocol {
    var status: NWPath.Status = .satisfied
    var isExpensive = false
    var isConstrained = false
    var types: [NWInterface.InterfaceType] = [.wifi]

    func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool {
        types.contains(type)
    }
}

final class DownloadScheduler {
    private let monitor: NetworkPathMonitorProtocol
    private(set) var allowsLargeDownloads = false

    init(monitor: NetworkPathMonitorProtocol = NWPathMonitor()) {
        self.monitor = monitor
        monitor.updateHandler = { [weak self] path in
            self?.allowsLargeDownloads = path.status == .satisfied && !path.isExpensive && !path.isConstrained
        }
        monitor.start(queue: .main)
    }
}
