// SPDX-License-Identifier: Apache-2.0
// Pattern: bridging the first path into async code with withCheckedContinuation,
// cancelling the monitor from inside its own handler.
import Foundation
import Network

func fetchCurrentPath() async -> NWPath {
    await withCheckedContinuation { continuation in
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in
            monitor.pathUpdateHandler = nil
            monitor.cancel()
            continuation.resume(returning: path)
        }
        monitor.start(queue: .global())
    }
}

func isConnectedNow() async -> Bool {
    await fetchCurrentPath().status == .satisfied
}
