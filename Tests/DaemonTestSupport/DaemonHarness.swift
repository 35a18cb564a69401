// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import Testing
import Dispatch
import Foundation
import PathClient
import PathSocketClient
import PathDaemon
import PathModel
import PathConfiguration
import PathProtocol
import ServiceSupport
import Synchronization
import SystemCalls

/// A PathService on a real Unix socket in a temporary directory, fed by a FakeNetwork.
public final class DaemonHarness {
    public let socketPath: String
    public let queue = DispatchQueue(label: "pathd.test.state")
    public let network: FakeNetwork
    public let service: PathService
    private var isStopped = false
    /// The harness's own directory (made and removed by it); nil when the test gave the socket path.
    private let directory: TemporaryDirectory?

    /// `failingStarts`: how many monitor instances fail in `start()` before one works.
    /// `socketPath`: listen there (a daemon that comes back where another was), in a
    /// directory the test owns; by default in a directory of the harness's own.
    public init(state: [NetworkEvent] = Fixture.online, configuration: Configuration = .builtIn,
         log: Logger = Logger(threshold: .error, journalPrefixes: false), failingStarts: Int = 0,
         scheduler: any Scheduler = DispatchScheduler(), clock: any TimeSource = SystemTimeSource(),
         stateDirectory: String? = nil, socketPath: String? = nil) throws {
        try BlockingTest.requireOwnThread("starting an in-process pathd")
        if let socketPath {
            self.socketPath = socketPath
            directory = nil
        } else {
            let directory = try TemporaryDirectory()
            self.directory = directory
            self.socketPath = directory.path("pathd.sock")
        }
        network = FakeNetwork(state)
        network.failNextStarts(failingStarts)
        service = PathService(queue: queue, configuration: configuration,
                              log: log, scheduler: scheduler, clock: clock, stateDirectory: stateDirectory,
                              makeSource: network.factory())
        let listener = try UnixListener.bind(path: self.socketPath)
        let outcome = StartOutcome()
        queue.sync {
            service.start(onFatal: { why in outcome.finish(.failure(StartFailed(reason: why))) })
            service.serve(listener)
            service.whenFirstPathKnown { outcome.finish(.success(())) }
        }
        switch outcome.wait() {
        case .success:
            break
        case .failure(let error):
            queue.sync { service.stop(reason: "start failed") }
            listener.close()
            removeDirectory()
            throw error
        }
    }

    /// The kernel-state tracker gave up: no source ever delivered a first state.
    public struct StartFailed: Error { let reason: String }

    /// The first of "first path known" and "fatal", waited for with a deadline.
    private final class StartOutcome: Sendable {
        private let result = Mutex<Result<Void, Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func finish(_ value: Result<Void, Error>) {
            let first = result.withLock { stored -> Bool in
                guard stored == nil else { return false }
                stored = value
                return true
            }
            if first { done.signal() }
        }

        func wait() -> Result<Void, Error> {
            guard done.wait(timeout: .now() + 10) == .success else {
                return .failure(StartFailed(reason: "neither a first path nor a fatal error within 10 s"))
            }
            return result.withLock { $0! }
        }
    }

    /// Waits until the number of connected clients satisfies `condition`, as the daemon
    /// reports admissions and departures; fails after 10 s.
    public func waitForClients(_ description: String, _ condition: @escaping @Sendable (Int) -> Bool) throws {
        try BlockingTest.requireOwnThread("waiting for \(description)")
        let changed = DispatchSemaphore(value: 0)
        queue.sync { service.onClientsChanged = { changed.signal() } }
        defer { queue.sync { service.onClientsChanged = nil } }
        let deadline = DispatchTime.now() + 10
        while !queue.sync(execute: { condition(service.clientCount) }) {
            guard changed.wait(timeout: deadline) == .success else {
                throw StartFailed(reason: "the daemon never reached \(description)")
            }
        }
    }

    /// Waits (10 s at most) until the fake kernel has made `count` source instances.
    public func waitForSources(_ count: Int) throws {
        guard network.waitForSources(count) else { throw StartFailed(reason: "only \(network.sources.count) sources") }
    }

    /// A client that fails (rather than hangs) when a line does not come within 10 s.
    public func connect() throws -> PathConnection {
        try PathConnection(socketPath: socketPath, timeout: .seconds(10))
    }

    /// Lets every user reach the socket (clients run as nobody: `HostileClient`) and
    /// returns the harness's directory, where their stderr can go. Only for a harness
    /// that made its own directory.
    public func openDirectoryToOthers() throws -> String {
        guard let directory else { throw StartFailed(reason: "the test owns the socket's directory") }
        try directory.openToOthers()
        return directory.url.path
    }

    /// Idempotent, so a test that stops the daemon midway can still `defer` it.
    public func stop() {
        guard !isStopped else { return }
        isStopped = true
        queue.sync { service.stop(reason: "test finished") }
        removeDirectory()
    }

    private func removeDirectory() {
        guard let directory else { return }
        teardown("remove \(directory.url.path)") { try directory.remove() }
    }
}

extension Configuration {
    /// The built-in configuration with some `[Daemon]` settings changed.
    public static func daemon(_ change: (inout DaemonSettings) -> Void) -> Configuration {
        var configuration = Configuration.builtIn
        change(&configuration.daemon)
        return configuration
    }
}
