// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathClient
import PathModel
import PathTestFixtures
import SystemCalls

/// A PathMonitor in `.daemon` mode on a harness's socket, every handler call recorded
/// (each handler asserts it runs on the start queue).
public final class WatchedMonitor: Sendable {
    public let monitor: PathMonitor
    public let queue: DispatchQueue
    public let paths = Received<Path>()
    public let states = Received<PathMonitor.State>()

    public init(socketPath: String, requiredInterfaceType: InterfaceType? = nil, prohibitExpensivePaths: Bool = false,
                requiredNetwork: String? = nil, prohibitedNetworks: [String] = [],
                scheduler: any Scheduler = DispatchScheduler(),
         label: String = "pathd.test.monitor") {
        let queue = DispatchQueue(label: label)
        self.queue = queue
        monitor = PathMonitor(requiredInterfaceType: requiredInterfaceType,
                              prohibitExpensivePaths: prohibitExpensivePaths, requiredNetwork: requiredNetwork,
                              prohibitedNetworks: prohibitedNetworks, socketPath: socketPath, mode: .daemon,
                              scheduler: scheduler)
        monitor.pathUpdateHandler = { [paths] path in
            dispatchPrecondition(condition: .onQueue(queue))
            paths.append(path)
        }
        monitor.stateUpdateHandler = { [states] state in
            dispatchPrecondition(condition: .onQueue(queue))
            states.append(state)
        }
    }

    public func start() { monitor.start(queue: queue) }
}

/// An NWPathMonitor on a `.daemon`-mode PathMonitor, its handler's calls recorded (and
/// asserted to run on `queue`).
public final class WatchedAppleMonitor: Sendable {
    public let monitor: NWPathMonitor
    public let queue: DispatchQueue
    public let paths = Received<NWPath>()

    public init(socketPath: String, scheduler: any Scheduler = DispatchScheduler(), queue: DispatchQueue) {
        self.queue = queue
        monitor = NWPathMonitor(PathMonitor(socketPath: socketPath, mode: .daemon, scheduler: scheduler))
        monitor.pathUpdateHandler = { [paths] path in
            dispatchPrecondition(condition: .onQueue(queue))
            paths.append(path)
        }
    }

    public func start() { monitor.start(queue: queue) }
}
