// SPDX-License-Identifier: Apache-2.0
// Pattern: a script-style helper that blocks until the network is up (or a timeout),
// with a semaphore and a captured flag: Swift 5 code, as CLI tools have it.
import Foundation
import Network

func waitForNetwork(timeout: DispatchTimeInterval = .seconds(10)) -> Bool {
    let semaphore = DispatchSemaphore(value: 0)
    let monitor = NWPathMonitor()
    var isSatisfied = false
    monitor.pathUpdateHandler = { path in
        if path.status == .satisfied {
            isSatisfied = true
            semaphore.signal()
        }
    }
    monitor.start(queue: DispatchQueue(label: "wait-for-network"))
    _ = semaphore.wait(timeout: .now() + timeout)
    monitor.cancel()
    return isSatisfied
}
