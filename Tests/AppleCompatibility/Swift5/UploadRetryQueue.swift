// SPDX-License-Identifier: Apache-2.0
// Pattern: resuming queued work when the network comes back (offline → online edge),
// and never blocking a request because the path says offline.
import Foundation
import Network

final class UploadRetryQueue {
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "UploadRetryQueue")
    private var previousStatus: NWPath.Status = .satisfied
    private var pending: [URL] = []
    var upload: ((URL) -> Void)?

    init() {
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self = self else { return }
            defer { self.previousStatus = path.status }
            if self.previousStatus != .satisfied && path.status == .satisfied {
                self.flush()
            }
        }
        monitor.start(queue: queue)
    }

    func enqueue(_ file: URL) {
        queue.async {
            self.pending.append(file)
            if self.monitor.currentPath.status == .satisfied {
                self.flush()
            }
        }
    }

    private func flush() {
        let files = pending
        pending.removeAll()
        files.forEach { upload?($0) }
    }
}
