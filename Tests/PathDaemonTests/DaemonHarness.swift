import Testing
import Dispatch
import Foundation
import PathClient
import PathDaemon
import PathModel
import PathProtocol

/// A PathService on a real Unix socket in a temporary directory, fed by a FakeNetwork.
final class DaemonHarness {
    let directory: String
    let socketPath: String
    let queue = DispatchQueue(label: "pathd.test.state")
    let network: FakeNetwork
    let service: PathService
    private var isStopped = false

    /// `failingStarts`: how many monitor instances fail in `start()` before one works.
    init(state: [NetworkEvent] = Fixture.online, configuration: ServiceConfiguration = ServiceConfiguration(),
         log: Logger = Logger(threshold: .error, journalPrefixes: false), failingStarts: Int = 0) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pathd-test-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socketPath = directory + "/pathd.sock"
        network = FakeNetwork(state)
        network.failNextStarts(failingStarts)
        service = PathService(queue: queue, configuration: configuration,
                              log: log,
                              makeSource: network.factory(queue: queue))
        let listener = try UnixListener.bind(path: socketPath)
        try queue.sync {
            do {
                try service.start()
            } catch {
                listener.close()
                throw error
            }
            service.serve(listener)
        }
    }

    /// A client that fails (rather than hangs) when a line does not come within 10 s.
    func connect() throws -> PathConnection {
        try PathConnection(socketPath: socketPath, timeout: .seconds(10))
    }

    /// Idempotent, so a test that stops the daemon midway can still `defer` it.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        queue.sync { service.stop(reason: "test finished") }
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            Issue.record("cannot remove \(directory): \(error)")
        }
    }
}

extension PathConnection {
    /// The next path line, failing on anything else.
    func nextPath(sourceLocation: SourceLocation = #_sourceLocation) throws -> (update: PathUpdate, id: JSONValue?) {
        let message = try next()
        guard case .path(let update, let id) = message else {
            throw PathClientError("expected a path line, got \(message)")
        }
        return (update, id)
    }
}
