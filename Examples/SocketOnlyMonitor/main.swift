// SPDX-License-Identifier: Apache-2.0
// Watches pathd with nothing but its socket: PathSocketClient's DaemonSubscription,
// which links neither libnl nor libsystemd (no in-process engine: without a daemon it
// says so and retries). One line per event; `--once` exits after the first path.
//
//   swift run SocketOnlyMonitor [--once]
import Dispatch
import Glibc
import PathSocketClient

let once = CommandLine.arguments.dropFirst().contains("--once")
let subscription = DaemonSubscription()
subscription.start(queue: .main) { event in
    switch event {
    case .connected(let socketPath, let daemonVersion, _):
        print("connected to pathd \(daemonVersion) at \(socketPath)")
    case .path(let update):
        print(update.path.summary)
        if once { exit(0) }
    case .resync(let reason, _):
        print("pathd re-read the kernel's state (\(reason))")
    case .disconnected(let error):
        print("pathd cannot be reached, retrying: \(error)")
    }
}
dispatchMain()
