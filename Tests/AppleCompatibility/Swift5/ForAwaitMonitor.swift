// SPDX-License-Identifier: Apache-2.0
// Pattern: iOS 17's AsyncSequence conformance: `for await path in monitor`.
import Foundation
import Network

@available(iOS 17.0, macOS 14.0, watchOS 10.0, tvOS 17.0, *)
struct ConnectivityWatcher: Sendable {
    func firstSatisfiedPath() async -> NWPath? {
        let monitor = NWPathMonitor()
        defer { monitor.cancel() }
        for await path in monitor where path.status == .satisfied {
            return path
        }
        return nil
    }

    func watch(onChange: @Sendable (Bool) -> Void) async {
        let monitor = NWPathMonitor(prohibitedInterfaceTypes: [.loopback])
        var iterator = monitor.makeAsyncIterator()
        while let path = await iterator.next() {
            onChange(path.status == .satisfied)
            if Task.isCancelled { break }
        }
        monitor.cancel()
    }

    func countChanges(limit: Int) async -> Int {
        var seen = 0
        for await _ in NWPathMonitor().prefix(limit) {
            seen += 1
        }
        return seen
    }
}
