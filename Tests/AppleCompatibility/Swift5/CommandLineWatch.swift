// SPDX-License-Identifier: Apache-2.0
// Pattern: a command-line tool's "watch" subcommand: print every change with a
// timestamp on the main queue and park the main thread in dispatchMain().
import Foundation
import Network

enum NetWatchCommand {
    static func run(arguments: [String]) -> Never {
        let monitor: NWPathMonitor
        if arguments.contains("--wifi") {
            monitor = NWPathMonitor(requiredInterfaceType: .wifi)
        } else if arguments.contains("--no-cellular") {
            monitor = NWPathMonitor(prohibitedInterfaceTypes: [.cellular])
        } else {
            monitor = NWPathMonitor()
        }
        let timestamp = Date.ISO8601FormatStyle()
        monitor.pathUpdateHandler = { path in
            let names = path.availableInterfaces.map { "\($0.name)(\($0.type))" }.joined(separator: ",")
            print("\(timestamp.format(Date())) \(path.status) [\(names)] expensive=\(path.isExpensive)")
        }
        monitor.start(queue: .main)
        dispatchMain()
    }
}
