// SPDX-License-Identifier: Apache-2.0
// Pattern: an AsyncStream extension on the monitor itself, cancelled from
// onTermination (as in automerge-repo-swift's NWPathMonitor+paths).
import Foundation
import Network

extension NWPathMonitor {
    func paths() -> AsyncStream<NWPath> {
        AsyncStream { continuation in
            pathUpdateHandler = { path in
                continuation.yield(path)
            }
            continuation.onTermination = { [weak self] _ in
                self?.cancel()
            }
            start(queue: DispatchQueue(label: "NSPathMonitor.paths"))
        }
    }
}

func logPathChanges() async {
    for await path in NWPathMonitor().paths() {
        print("path changed:", path.status, path.availableInterfaces.map(\.name))
    }
}
