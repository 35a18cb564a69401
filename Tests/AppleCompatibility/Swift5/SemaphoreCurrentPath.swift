// SPDX-License-Identifier: Apache-2.0
// Pattern: "give me the path now" for synchronous code: wait for the first update,
// the result in a small locked box so that it also compiles in Swift 6.
import Foundation
import Network

// @unchecked Sendable: `stored` is only touched with `lock` held.
private final class PathBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: NWPath?

    var path: NWPath? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

func currentPathSynchronously(timeout: TimeInterval = 2) -> NWPath? {
    let monitor = NWPathMonitor()
    let semaphore = DispatchSemaphore(value: 0)
    let box = PathBox()
    monitor.pathUpdateHandler = { path in
        box.path = path
        semaphore.signal()
    }
    monitor.start(queue: DispatchQueue.global(qos: .userInitiated))
    defer { monitor.cancel() }
    guard semaphore.wait(timeout: .now() + timeout) == .success else {
        return nil
    }
    return box.path ?? monitor.currentPath
}
