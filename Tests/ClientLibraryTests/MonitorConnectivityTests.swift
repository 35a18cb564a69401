// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Dispatch
import PathClient
import PathModel
import PathTestFixtures
import Testing

@Suite("PathMonitor's connectivity, apart from the path", .blocking)
struct MonitorConnectivityTests {
    @Test("connectivityUpdateHandler gets each verdict; pathUpdateHandler is not called for it")
    func separateHandler() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let queue = DispatchQueue(label: "pathd.test.connectivity")
        let paths = Received<Path>()
        let verdicts = Received<Connectivity>()
        let readInPathHandler = Received<Connectivity>()
        let monitor = PathMonitor(socketPath: harness.socketPath, mode: .daemon)
        monitor.pathUpdateHandler = { [unowned monitor] in
            readInPathHandler.append(monitor.currentConnectivity)
            paths.append($0)
        }
        monitor.connectivityUpdateHandler = { verdicts.append($0) }
        monitor.start(queue: queue)
        defer { monitor.cancel() }
        _ = try paths.next("the first path")
        let probe = try harness.connect()
        let portal = CheckReports.report(.portal, redirect: "http://login.example/")
        _ = try CheckReports.send(portal, from: probe)
        #expect(try verdicts.next("the portal verdict") == portal)
        // A path change after the report: seen by the path handler as the second path only.
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try paths.next("the carrier loss").status == .unsatisfied)
        #expect(try verdicts.next("the unknown verdict after the carrier loss") == .unknown)
        #expect(paths.all.count == 2, "the report called the path handler")
        #expect(verdicts.all == [portal, .unknown])
        // The path handler already reads the verdict that came with its path.
        #expect(readInPathHandler.all == [.unknown, .unknown])
        #expect(queue.sync { monitor.currentConnectivity } == .unknown)
    }
}
