// SPDX-License-Identifier: Apache-2.0
import ConnectivityCheck
import Dispatch
import PathModel
import PathConfiguration
import PathTestFixtures
import ServiceSupport
import Testing

/// What pathd-probe logs about its way to pathd: enough for `systemctl status` to show
/// why nothing is checked, never a line per retry. Retries happen only when the test runs
/// them (`ManualScheduler`); pathd is a `FakeDaemon` on a real socket.
@Suite("pathd-probe's log while pathd is unreachable", .blocking)
struct ProbeLogTests {
    static let hello = #"{"type":"hello","protocol":1,"version":"0.1.0","generation":1}"#
    static let path = #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","interfaces":[]}"#

    /// Checking is off ([Connectivity] has no URL=): a fetch would be a failure of its own.
    struct NoFetcher: ConnectivityFetcher {
        func fetch(url: String, interface: String, timeout: Duration,
                   expected: ConnectivitySettings.ExpectedContent) -> FetchResult {
            Issue.record("fetched \(url) through \(interface) with checking off")
            return FetchResult(ending: .failed("not fetched"))
        }
    }

    @Test("""
        unreachable from the start: one warning naming socket and error, whatever the retries; one line on connecting
        """)
    func unreachableFromTheStart() throws {
        try withSocketDirectory { socketPath in
            let scheduler = ManualScheduler()
            let lines = Received<String>()
            let log = Logger(threshold: .debug) { level, message in lines.append("\(level.rawValue): \(message)") }
            let probe = ConnectivityProbe(settings: ConnectivitySettings(), socketPath: socketPath,
                                          fetcher: NoFetcher(), log: log, scheduler: scheduler)
            probe.queue.async { probe.start() }
            defer { probe.cancel() }

            let warning = try lines.next("the first failed attempt's warning")
            #expect(warning.hasPrefix("warning: pathd is not reachable: cannot connect to pathd at \(socketPath): "),
                    "\(warning)")
            #expect(warning.contains("No such file or directory"), "\(warning)")
            // Three more attempts fail: each has scheduled its retry once its failure was delivered.
            let attempts = 4
            for attempt in 1...attempts {
                try scheduler.waitForScheduled(attempt)
                if attempt < attempts { try scheduler.runNext() }
            }
            probe.queue.sync {}
            #expect(lines.all == [warning], "a line per retry")

            let daemon = try FakeDaemon(socketPath: socketPath) { _ in FakeDaemon.Reply([Self.hello, Self.path]) }
            defer { daemon.stop() }
            try scheduler.runNext()
            #expect(try lines.next("the connection's line") == "info: connected to pathd 0.1.0 at \(socketPath)")
        }
    }
}
