// SPDX-License-Identifier: Apache-2.0
// Pattern: an actor owns the latest path; the handler hops in with a Task.
import Foundation
import Network

actor NetworkState {
    private let monitor = NWPathMonitor()
    private var path: NWPath?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func start() {
        monitor.pathUpdateHandler = { path in
            Task { await self.update(path) }
        }
        monitor.start(queue: DispatchQueue(label: "NetworkState"))
    }

    func stop() {
        monitor.cancel()
    }

    var isReachable: Bool {
        path?.status == .satisfied
    }

    var isExpensive: Bool {
        path?.isExpensive ?? false
    }

    func waitForConnection() async {
        if isReachable { return }
        await withCheckedContinuation { continuation in
            waiters.append(continuation)
        }
    }

    private func update(_ newPath: NWPath) {
        path = newPath
        guard newPath.status == .satisfied else { return }
        let ready = waiters
        waiters.removeAll()
        for waiter in ready { waiter.resume() }
    }
}
