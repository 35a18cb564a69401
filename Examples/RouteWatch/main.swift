// SPDX-License-Identifier: Apache-2.0
// Follows the route to one address with PathMonitor.routeUpdates: one line now, then one
// per change of pathd's answer (from pathd, or with no daemon from its engine in this
// process). A backup or sync tool would pause and resume on these lines instead of
// printing them. `--in-process` asks only the engine here; exits 1 when the sequence
// fails (an address with a zone that names no interface, say).
//
//   swift run RouteWatch 198.51.100.7 [--in-process]
//   swift run RouteWatch fe80::1%eth0
import Foundation
import PathClient

let arguments = CommandLine.arguments.dropFirst()
guard let destination = arguments.first(where: { !$0.hasPrefix("--") }) else {
    FileHandle.standardError.write(Data("usage: RouteWatch ADDRESS [--in-process]\n".utf8))
    exit(2)
}
let mode: PathMonitor.Mode = arguments.contains("--in-process") ? .inProcess : .automatic
do {
    for try await route in PathMonitor.routeUpdates(to: destination, mode: mode) {
        // "satisfied via wg0 (gateway 10.8.0.1)", "unsatisfied: no route to 198.51.100.7"
        print(route.summary)
    }
} catch {
    FileHandle.standardError.write(Data("RouteWatch: \(error)\n".utf8))
    exit(1)
}
