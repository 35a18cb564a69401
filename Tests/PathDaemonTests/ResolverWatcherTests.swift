import Dispatch
import Foundation
import PathDaemon
import PathEngine
import Synchronization
import Testing

/// The resolv.conf watcher against a real file in a temporary directory, replaced the
/// way resolvconf and systemd-resolved replace it.
@Suite("resolv.conf watcher")
struct ResolverWatcherTests {
    /// Collects the watcher's reports and waits for the next one with a failing deadline.
    final class Reports: Sendable {
        private let values = Mutex<[Bool]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func record(_ value: Bool) {
            values.withLock { $0.append(value) }
            arrived.signal()
        }

        func next(_ description: String) throws -> Bool {
            guard arrived.wait(timeout: .now() + 10) == .success else {
                throw WatcherTimeout(description: "no report for \(description)")
            }
            return values.withLock { $0.removeFirst() }
        }
    }

    struct WatcherTimeout: Error, CustomStringConvertible { let description: String }

    @Test("reports nameservers, an atomic replace without them, and an in-place edit")
    func watchesReplacements() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathd-resolv-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(at: directory) } catch { Issue.record("cleanup: \(error)") }
        }
        let path = directory.appendingPathComponent("resolv.conf").path
        try "nameserver 192.0.2.53\n".write(toFile: path, atomically: false, encoding: .utf8)

        let queue = DispatchQueue(label: "pathd.test.resolver")
        let reports = Reports()
        let watcher = ResolverWatcher(path: path, queue: queue, log: Logger(threshold: .error, journalPrefixes: false)) {
            reports.record($0)
        }
        queue.sync { watcher.start() }
        defer { queue.sync { watcher.cancel() } }
        #expect(try reports.next("the first read") == true)

        // Atomic replace: write a temporary file, rename it over the old one.
        let temporary = directory.appendingPathComponent(".resolv.new").path
        try "# no servers\nsearch example.org\n".write(toFile: temporary, atomically: false, encoding: .utf8)
        #expect(rename(temporary, path) == 0)
        #expect(try reports.next("the replacement without nameservers") == false)

        // In place, as an editor would.
        try "nameserver 2001:db8::53\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try reports.next("the edit adding one back") == true)
    }
}
