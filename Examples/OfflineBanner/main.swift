// SPDX-License-Identifier: Apache-2.0
// An honest offline banner, with PathClient's native API: prints one line per change
// of the host's network path, and a retry hint while offline. Unknown (no answer yet)
// is not offline, so nothing is printed until the first answer arrives.
//
//   swift run OfflineBanner            # pathd when it answers, else in-process
//   swift run OfflineBanner --once     # print the first answer and exit
import Dispatch
import Glibc
import PathClient

let once = CommandLine.arguments.dropFirst().contains("--once")
let monitor = PathMonitor()
monitor.stateUpdateHandler = { state in
    switch state {
    case .unknown:
        // No answer (yet, or pathd went away): say nothing rather than "offline".
        return
    case .available(let path):
        let via = path.availableInterfaces.map(\.name).joined(separator: ", ")
        let cost = path.isExpensive ? " (expensive: avoid large downloads)" : ""
        print("online via \(via)\(cost)")
    case .needsConnection(let path):
        print("online on demand: \(path.availableInterfaces.first?.name ?? "a link") comes up when used")
    case .unavailable(let path):
        print("offline: \(path.summary.dropFirst("unsatisfied: ".count)); will retry when the network changes")
    }
    if once { exit(0) }
}
monitor.start(queue: .main)
dispatchMain()
