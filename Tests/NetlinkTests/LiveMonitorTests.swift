// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Glibc
import Synchronization
import PathModel
import PathTestFixtures
import Testing
@testable import Netlink

/// A monitor of a namespace of its own whose loopback is up, as a host's is. Its own,
/// not the test process's: a thread that joined a test's namespace leaves the dispatch
/// threads it started there, and a test that opened its sockets on one of those watched
/// a namespace whose loopback had no address (seen in 2 of 25 runs of the netlink tests).
@Suite(.blocking) struct LiveMonitorTests {
    @Test func firstBatchIsTheFullStateOfTheHost() throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        try namespace.ip("link", "set", "lo", "up")
        let queue = DispatchQueue(label: "pathd.test.netlink.live")
        let inbox = BatchInbox()
        let monitor = NetlinkMonitor(
            generation: Generation(rawValue: 7), queue: queue, configuration: .standard,
            deliver: inbox.deliver, lost: inbox.lost, log: inbox.log)
        try namespace.start(monitor, on: queue)
        defer { monitor.cancel() }

        let batch = try #require(inbox.next(), "no first batch within the deadline; lost: \(inbox.lostReasons)")
        #expect(batch.generation == Generation(rawValue: 7))
        #expect(batch.isFullState)
        let loopback = try #require(batch.links.first { $0.name == "lo" })
        #expect(loopback.type == .loopback)
        #expect(loopback.hardwareType == .loopback)
        #expect(batch.addresses.contains {
            $0.interface == loopback.index && $0.address == IPAddress("127.0.0.1") && $0.prefixLength == 8 && $0.scope
                == .host
        })
        #expect(batch.lookupCount == 2)
        #expect(Set(batch.lookups.keys) == [.ipv4, .ipv6])
        // SO_ATTACH_FILTER needs no privilege: the kernel takes the route filter either way.
        #expect(queue.sync { monitor.isRouteFilterAttached }, "log: \(inbox.logLines)")
        #expect(!inbox.logLines.contains { $0.hasPrefix("warning:") }, "log: \(inbox.logLines)")
        // As root SO_RCVBUFFORCE grants the 8 MiB (reported doubled); otherwise rmem_max caps it.
        let obtained = queue.sync { monitor.receiveBufferBytes }
        #expect(getuid() == 0 ? obtained >= 8 * 1024 * 1024 : obtained > 0)
        // One info line, and only when the kernel granted less than asked: it names what it
        // granted (half of what getsockopt reports), never a warning.
        let capped = inbox.logLines.filter { $0.contains("netlink: receive buffer") }
        if obtained / 2 < 8 * 1024 * 1024 {
            #expect(capped == ["info: netlink: receive buffer \(obtained / 2) bytes (net.core.rmem_max; 8388608 asked, "
                + "see \"Receive buffer\" in pathd(8))"], "log: \(inbox.logLines)")
        } else {
            #expect(capped.isEmpty, "log: \(inbox.logLines)")
        }
    }

    @Test("a round of lookups longer than one turn is answered whole, in order, the kernel's answer each")
    func lookupsAcrossTurns() throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        try namespace.ip("link", "set", "lo", "up")
        let queue = DispatchQueue(label: "pathd.test.netlink.lookups")
        let inbox = BatchInbox()
        let monitor = NetlinkMonitor(
            generation: .first, queue: queue, configuration: .standard,
            deliver: inbox.deliver, lost: inbox.lost, log: inbox.log)
        try namespace.start(monitor, on: queue)
        defer { monitor.cancel() }
        _ = try #require(inbox.next(), "no first batch; lost: \(inbox.lostReasons)")
        // Loopback's own addresses: the kernel answers `local` for each, whatever the routes.
        let count = NetlinkMonitor.lookupsPerTurn * 2 + 3
        let questions = (0..<count).map { RouteQuestion(destination: .v4(0x7F00_0001 + UInt32($0))) }
        let done = DispatchSemaphore(value: 0)
        let answers = Mutex<[Result<AskedLookup, RouteLookupError>]>([])
        monitor.lookUpRoutes(questions) { result in
            answers.withLock { $0 = result }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let result = answers.withLock { $0 }
        #expect(result.count == count)
        for answer in result {
            guard case .success(let asked) = answer, case .route(let route) = asked.lookup.route else {
                Issue.record("not a route: \(answer)")
                continue
            }
            #expect(route.type == .local)
        }
    }

    @Test func cancelledBeforeStartNeverStartsAndCancelIsIdempotent() throws {
        let queue = DispatchQueue(label: "pathd.test.netlink.cancel")
        let inbox = BatchInbox()
        let monitor = NetlinkMonitor(
            generation: .first, queue: queue, configuration: .standard,
            deliver: inbox.deliver, lost: inbox.lost, log: inbox.log)
        monitor.cancel()  // before start: just finishes
        queue.sync {}  // the cancellation ran
        monitor.start()  // a cancelled monitor does not start, and says nothing
        monitor.cancel()
        monitor.cancel()
        queue.sync {}  // anything start or cancel queued ran
        #expect(inbox.lostReasons.isEmpty)
        #expect(inbox.next(within: 0) == nil, "a cancelled monitor delivered a batch")
    }
}
