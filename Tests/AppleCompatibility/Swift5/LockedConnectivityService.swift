// SPDX-License-Identifier: Apache-2.0
// Pattern: a Swift 6-ready shared service: @unchecked Sendable, state behind an NSLock,
// handlers that capture only Sendable values.
import Foundation
import Network

// @unchecked Sendable: every mutable property is touched with `lock` held.
final class ConnectivityService: @unchecked Sendable {
    static let shared = ConnectivityService()

    private let monitor = NWPathMonitor()
    private let lock = NSLock()
    private var latestPath: NWPath?
    private var observers: [UUID: @Sendable (Bool) -> Void] = [:]

    var isConnected: Bool {
        lock.withLock { latestPath?.status == .satisfied }
    }

    var isOnCellular: Bool {
        lock.withLock { latestPath?.usesInterfaceType(.cellular) ?? false }
    }

    private init() {
        monitor.pathUpdateHandler = { [weak self] path in
            self?.update(path)
        }
        monitor.start(queue: DispatchQueue(label: "com.example.connectivity", qos: .utility))
    }

    @discardableResult
    func addObserver(_ observer: @escaping @Sendable (Bool) -> Void) -> UUID {
        let id = UUID()
        lock.withLock { observers[id] = observer }
        return id
    }

    func removeObserver(_ id: UUID) {
        _ = lock.withLock { observers.removeValue(forKey: id) }
    }

    private func update(_ path: NWPath) {
        let (changed, toNotify) = lock.withLock { () -> (Bool, [@Sendable (Bool) -> Void]) in
            let changed = latestPath?.status != path.status
            latestPath = path
            return (changed, Array(observers.values))
        }
        guard changed else { return }
        let connected = path.status == .satisfied
        for observer in toNotify { observer(connected) }
    }
}
