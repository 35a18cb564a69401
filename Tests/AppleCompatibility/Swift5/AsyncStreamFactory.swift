// SPDX-License-Identifier: Apache-2.0
// Pattern: a static factory that owns its monitor inside the stream, keeps only the
// newest path for a slow reader, and cancels the monitor when the reader goes away.
import Foundation
import Network

enum NetworkPathStream {
    static func updates(requiredInterfaceType: NWInterface.InterfaceType? = nil) -> AsyncStream<NWPath> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let monitor = requiredInterfaceType.map(NWPathMonitor.init(requiredInterfaceType:)) ?? NWPathMonitor()
            monitor.pathUpdateHandler = { continuation.yield($0) }
            continuation.onTermination = { @Sendable _ in
                monitor.cancel()
            }
            monitor.start(queue: DispatchQueue(label: "NetworkPathStream", qos: .utility))
        }
    }

    static func statusUpdates() -> AsyncStream<NWPath.Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: NWPath.Status.self)
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in
            continuation.yield(path.status)
        }
        continuation.onTermination = { _ in monitor.cancel() }
        monitor.start(queue: DispatchQueue(label: "NetworkPathStream.status"))
        return stream
    }
}

func waitUntilOnline() async {
    for await status in NetworkPathStream.statusUpdates() where status == .satisfied {
        return
    }
}
