// SPDX-License-Identifier: Apache-2.0
// Pattern: treating `.requiresConnection` (on-demand VPN, dial-up) as "will connect
// when used", distinct from satisfied and unsatisfied, and never as offline.
import Foundation
import Network

enum ReachabilityState: Equatable, Sendable {
    case reachable(expensive: Bool)
    case reachableOnDemand
    case unreachable(NWPath.UnsatisfiedReason)

    init(_ path: NWPath) {
        switch path.status {
        case .satisfied:
            self = .reachable(expensive: path.isExpensive)
        case .requiresConnection:
            self = .reachableOnDemand
        case .unsatisfied:
            self = .unreachable(path.unsatisfiedReason)
        @unknown default:
            self = .unreachable(.notAvailable)
        }
    }

    var shouldAttemptRequests: Bool {
        if case .unreachable = self { return false }
        return true
    }
}

func reachabilityStates(for monitor: NWPathMonitor) -> AsyncStream<ReachabilityState> {
    AsyncStream { continuation in
        monitor.pathUpdateHandler = { path in
            continuation.yield(ReachabilityState(path))
        }
        continuation.onTermination = { _ in
            monitor.cancel()
        }
        monitor.start(queue: DispatchQueue(label: "reachability-states"))
    }
}
