// SPDX-License-Identifier: Apache-2.0
// Pattern: logging paths the way apps do: debugDescription, String(describing:),
// String(reflecting:), interpolation of paths, interfaces, reasons and endpoints.
import Foundation
import Network

func logLine(for path: NWPath) -> String {
    var parts = ["[Network] \(path)"]
    parts.append("debug: " + path.debugDescription)
    parts.append("status: " + String(describing: path.status))
    parts.append("reason: " + String(describing: path.unsatisfiedReason))
    parts.append("interfaces: " + path.availableInterfaces.map(\.debugDescription).joined(separator: ", "))
    parts.append("types: " + path.availableInterfaces.map { String(describing: $0.type) }.joined(separator: ", "))
    parts.append("gateways: " + path.gateways.map { $0.debugDescription }.joined(separator: ", "))
    parts.append("reflecting: " + String(reflecting: path))
    if let local = path.localEndpoint { parts.append("local: \(local)") }
    if let remote = path.remoteEndpoint { parts.append("remote: \(remote)") }
    return parts.joined(separator: " | ")
}

func startLogging() -> NWPathMonitor {
    let monitor = NWPathMonitor()
    monitor.pathUpdateHandler = { path in
        print(logLine(for: path))
        debugPrint(path)
    }
    monitor.start(queue: DispatchQueue(label: "network.logging"))
    return monitor
}
