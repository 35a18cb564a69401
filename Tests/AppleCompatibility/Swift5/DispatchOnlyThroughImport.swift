// SPDX-License-Identifier: Apache-2.0
// Pattern: a file whose only import is the path library, yet it makes its own queues
// (`DispatchQueue(label:qos:)`, `.global(qos:)`, `DispatchQoS`), as files that import
// only Network do: Network makes Dispatch visible.
import Network

final class QueueOwningWatcher: Sendable {
    private let monitor = NWPathMonitor()
    private let deliveryQueue: DispatchQueue

    init(qos: DispatchQoS = .utility, target: DispatchQueue? = .global(qos: .utility)) {
        deliveryQueue = DispatchQueue(label: "watcher.paths", qos: qos, target: target)
    }

    func begin(_ onChange: @escaping @Sendable (Bool) -> Void) {
        monitor.pathUpdateHandler = { path in
            DispatchQueue.main.async { onChange(path.status == .satisfied) }
        }
        monitor.start(queue: deliveryQueue)
    }

    func end() {
        monitor.cancel()
    }
}
