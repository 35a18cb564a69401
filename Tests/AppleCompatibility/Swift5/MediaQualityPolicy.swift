// SPDX-License-Identifier: Apache-2.0
// Pattern: Low Data Mode and metered networks: pick a media quality from
// isConstrained / isExpensive, kept in a Mutex for Swift 6.
import Foundation
import Network
import Synchronization

enum MediaQuality: Sendable {
    case high
    case medium
    case low
}

func preferredQuality(for path: NWPath) -> MediaQuality {
    if path.isConstrained { return .low }
    if path.isExpensive { return .medium }
    return .high
}

final class MediaQualityPolicy: Sendable {
    private let monitor = NWPathMonitor()
    private let quality = Mutex(MediaQuality.medium)

    init() {
        monitor.pathUpdateHandler = { [weak self] path in
            self?.quality.withLock { $0 = preferredQuality(for: path) }
        }
        monitor.start(queue: DispatchQueue(label: "MediaQualityPolicy"))
    }

    var current: MediaQuality {
        quality.withLock { $0 }
    }

    deinit {
        monitor.cancel()
    }
}
