// SPDX-License-Identifier: Apache-2.0
// Pattern: a monitor protocol whose `currentPath` is `{ get set }`, as Apple declares
// NWPathMonitor's, so that a test double can be handed a path; and the monitor's own
// `debugDescription` in a log line.
import Foundation
import Network

protocol PathSource: AnyObject {
    var currentPath: NWPath { get set }
    func start(queue: DispatchQueue)
    func cancel()
}

extension NWPathMonitor: PathSource {}

final class PathLogger {
    private let source: any PathSource

    init(source: any PathSource) {
        self.source = source
    }

    func logLine() -> String {
        let path = source.currentPath
        return "\(path.status == .satisfied ? "up" : "down") \(path.debugDescription)"
    }

    static func describe(_ monitor: NWPathMonitor) -> String {
        monitor.debugDescription
    }
}
