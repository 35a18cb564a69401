// SPDX-License-Identifier: Apache-2.0
// Pattern: a protocol that NWPathMonitor conforms to, so that tests can inject a mock
// (the Swift 6-era spelling: the requirement's handler is @Sendable, as Apple's is).
import Foundation
import Network

@available(iOS 12.0, macOS 10.14, *)
public protocol NetworkMonitoring: AnyObject, Sendable {
    var pathUpdateHandler: (@Sendable (NWPath) -> Void)? { get set }
    var currentPath: NWPath { get }
    func start(queue: DispatchQueue)
    func cancel()
}

@available(iOS 12.0, macOS 10.14, *)
extension NWPathMonitor: NetworkMonitoring {}

@available(iOS 12.0, macOS 10.14, *)
public final class ReachabilityClient: Sendable {
    private let monitor: any NetworkMonitoring

    public init(monitor: any NetworkMonitoring = NWPathMonitor()) {
        self.monitor = monitor
    }

    public func start(onChange: @escaping @Sendable (Bool) -> Void) {
        monitor.pathUpdateHandler = { path in
            onChange(path.status == .satisfied)
        }
        monitor.start(queue: DispatchQueue(label: "ReachabilityClient"))
    }

    public var isReachable: Bool {
        monitor.currentPath.status == .satisfied
    }

    public func stop() {
        monitor.cancel()
    }
}
