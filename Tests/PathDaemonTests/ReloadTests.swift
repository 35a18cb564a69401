// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Dispatch
import Glibc
import PathSocketClient
@testable import PathDaemon
import PathConfiguration
import PathModel
import PathProtocol
import PathTestFixtures
import Testing

@Suite("reload over the socket", .blocking)
struct ReloadTests {
    @Test("a reload that makes eth0 expensive publishes exactly one line, and a repeat publishes none")
    func reloadPublishesOnce() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let script = ReloadScript()
        script.install(on: harness)
        let (subscriber, first) = try harness.connectAndSubscribe()
        #expect(!first.path.isExpensive)

        let admin = try harness.connect()
        script.answer(.valid(ReloadScript.expensiveEth0(),
                             warnings: ["pathd.conf:4: unknown key Foo= in [Daemon]; ignored"]))
        try admin.send(Request(.reload, id: .integer(1)))
        #expect(try admin.next() == .reloaded(warnings: ["pathd.conf:4: unknown key Foo= in [Daemon]; ignored"],
                                              id: .integer(1)))
        let second = try subscriber.nextPath().update
        #expect(second.path.isExpensive)
        #expect(second.sequence == first.sequence + 1)
        #expect(second.generation == first.generation)
        try subscriber.expectNothingPending()

        try admin.send(Request(.reload, id: .integer(2)))
        #expect(try admin.next() == .reloaded(warnings: ["pathd.conf:4: unknown key Foo= in [Daemon]; ignored"],
                                              id: .integer(2)))
        try subscriber.expectNothingPending()
        #expect(script.callCount == 2)
        #expect(harness.queue.sync { harness.service.clientCount } == 2)
    }

    @Test("not expensive: a reload that makes eth0 expensive makes the path unsatisfied, expensiveExcluded; and back")
    func notExpensiveFollowsTheReload() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let script = ReloadScript()
        script.install(on: harness)
        let client = try harness.connect()
        let criteria = Criteria(prohibitExpensivePaths: true)
        try client.send(Request(.subscribe(.path(criteria)), id: .string("backup")))
        let first = try client.nextPath()
        #expect(first.id == .string("backup"))
        #expect(first.update.path.status == .satisfied)

        let admin = try harness.connect()
        script.answer(valid: ReloadScript.expensiveEth0())
        try admin.send(Request(.reload))
        #expect(try admin.next() == .reloaded(warnings: [], id: nil))
        let refused = try client.nextPath()
        #expect(refused.id == .string("backup"))
        #expect(refused.update.path.status == .unsatisfied)
        #expect(refused.update.path.unsatisfiedReason == .expensiveExcluded)
        #expect(refused.update.path.reasonInterface == "eth0")
        #expect(refused.update.sequence == first.update.sequence + 1)
        // status with the same criteria answers the same path; without, the expensive one.
        try admin.send(Request(.status(criteria)))
        #expect(try admin.nextPath().update.path == refused.update.path)
        try admin.send(Request(.status(.any)))
        let unconditioned = try admin.nextPath().update.path
        #expect(unconditioned.status == .satisfied && unconditioned.isExpensive)

        script.answer(valid: Configuration())
        try admin.send(Request(.reload))
        #expect(try admin.next() == .reloaded(warnings: [], id: nil))
        let free = try client.nextPath().update
        #expect(free.path.status == .satisfied)
        #expect(!free.path.isExpensive)
    }

    @Test("a reload with errors changes nothing: error line with file:line, no path line, nobody disconnected")
    func invalidReloadKeepsState() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let script = ReloadScript()
        script.install(on: harness)
        let (subscriber, first) = try harness.connectAndSubscribe()

        let admin = try harness.connect()
        script.answer(.invalid(errors: ["/etc/pathd/pathd.conf:12: Expensive= expects a boolean, got \"maybe\""],
                               warnings: []))
        try admin.send(Request(.reload, id: .string("r")))
        guard case .error(let code, let message, let id) = try admin.next() else {
            Issue.record("expected an error line")
            return
        }
        #expect(code == .configInvalid)
        #expect(id == .string("r"))
        #expect(message.contains("/etc/pathd/pathd.conf:12: Expensive= expects a boolean"))
        try subscriber.expectNothingPending()
        try admin.send(Request(.status(.any)))
        let status = try admin.nextPath().update
        #expect(status.path == first.path)
        #expect(status.sequence == first.sequence)
        #expect(harness.queue.sync { harness.service.clientCount } == 2)

        // A later valid reload still works from the untouched state.
        script.answer(.valid(ReloadScript.expensiveEth0(), warnings: []))
        try admin.send(Request(.reload))
        #expect(try admin.next() == .reloaded(warnings: [], id: nil))
        #expect(try subscriber.nextPath().update.sequence == first.sequence + 1)
    }

    @Test("while a reload reads and parses the files, the daemon answers clients and publishes changes")
    func readOffTheStateQueue() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let reading = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        harness.queue.sync {
            harness.service.setConfigurationReloader {
                reading.signal()
                // Bounded: a daemon that read on its state queue is let go when the test fails.
                _ = proceed.wait(timeout: .now() + 30)
                return .valid(ReloadScript.expensiveEth0(), warnings: [])
            }
        }
        var isProceeding = false
        defer { if !isProceeding { proceed.signal() } }
        let (subscriber, first) = try harness.connectAndSubscribe()
        let admin = try harness.connect()
        try admin.send(Request(.reload, id: .integer(1)))
        #expect(reading.wait(timeout: .now() + 10) == .success, "the reload never began")
        // The reloader is still reading (it waits for `proceed`): a new client is admitted
        // and answered, and a change of the kernel's state is published.
        let client = try harness.connect()
        try client.send(Request(.ping, id: .string("meanwhile")))
        #expect(try client.next() == .pong(id: .string("meanwhile")))
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let noCarrier = try subscriber.nextPath().update
        #expect(noCarrier.path.unsatisfiedReason == .noCarrier && noCarrier.sequence == first.sequence + 1)
        proceed.signal()
        isProceeding = true
        #expect(try admin.next() == .reloaded(warnings: [], id: .integer(1)))
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        var update = try subscriber.nextPath().update
        while update.path.status != .satisfied { update = try subscriber.nextPath().update }
        #expect(update.path.isExpensive, "the configuration read meanwhile is applied")
    }

    @Test("a service with no reloader answers configInvalid")
    func noReloader() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        try client.send(Request(.reload))
        guard case .error(let code, _, _) = try client.next() else {
            Issue.record("expected an error line")
            return
        }
        #expect(code == .configInvalid)
    }

    /// The one rule behind reload, connectivity reports and the connection budget's headroom.
    @Test("reload and connectivity reports: root and the daemon's own user; nobody else, and not an unknown peer",
          arguments: [
              (peer: uid_t(0), daemon: uid_t(0), trusted: true),
              (peer: 0, daemon: 990, trusted: true),
              (peer: 990, daemon: 990, trusted: true),
              (peer: 1000, daemon: 990, trusted: false),
              (peer: 65534, daemon: 990, trusted: false),
              (peer: 1000, daemon: 0, trusted: false),
              // An unknown peer (uid_t.max: SO_PEERCRED failed), even one equal to the daemon's uid.
              (peer: uid_t.max, daemon: uid_t.max, trusted: false),
          ])
    func trust(peer: uid_t, daemon: uid_t, trusted: Bool) {
        #expect(PeerTrust(daemonUserID: daemon).trusts(peer) == trusted)
    }

    @Test("reconfigure before the first path publishes nothing and is used for it")
    func reconfigureDirectly() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.queue.sync { harness.service.reconfigure(ReloadScript.expensiveEth0()) }
        let client = try harness.connect()
        try client.send(Request(.status(.any)))
        #expect(try client.nextPath().update.path.isExpensive)
    }
}
