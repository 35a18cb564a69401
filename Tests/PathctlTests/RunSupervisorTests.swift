// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import pathctl

/// `pathctl run`'s rules, event by event, with no process or daemon (RunSupervisor).
@Suite("pathctl run's supervisor")
struct RunSupervisorTests {
    typealias Event = RunSupervisor.Event

    static let free = Event.path(holds: true, why: "satisfied via eth0 (IPv4)")
    static let expensive = Event.path(holds: false, why: "the path is not satisfied: unsatisfied: the path via usb0 "
        + "is expensive, which the criteria exclude")

    static func supervisor(restarts: Bool = false) -> RunSupervisor {
        RunSupervisor(command: "restic", restarts: restarts, grace: .seconds(10))
    }

    @Test("a path that holds at once starts the command, silently; a command that ends on its own ends pathctl so")
    func startsAndPassesThrough() {
        var run = Self.supervisor()
        #expect(run.handle(Self.free) == [.start])
        #expect(run.handle(Self.free) == [], "the same answer again changes nothing")
        #expect(run.handle(.commandEnded(.exited(3))) == [.end(.status(3))])
        var killed = Self.supervisor()
        _ = killed.handle(Self.free)
        #expect(killed.handle(.commandEnded(.killed(signal: SIGSEGV))) == [.end(.signal(SIGSEGV))])
    }

    @Test("the criteria stop holding: SIGTERM with the reason; the command's end is then exit 75, whatever it was")
    func stopsOnChange() {
        var run = Self.supervisor()
        _ = run.handle(Self.free)
        #expect(run.handle(Self.expensive) == [
            .say("the path is not satisfied: unsatisfied: the path via usb0 is expensive, which the criteria "
                + "exclude; stopping restic (SIGTERM)"),
            .signal(SIGTERM),
        ])
        #expect(run.isInGracePeriod)
        #expect(run.handle(Self.free) == [], "holding again while it stops does not start a second one")
        #expect(run.handle(.commandEnded(.exited(1))) == [.end(.status(75))])
    }

    @Test("the grace period ends: SIGKILL, once; it ends no grace period that is not running")
    func killsAfterGrace() {
        var run = Self.supervisor()
        #expect(run.handle(.graceEnded) == [])
        _ = run.handle(Self.free)
        #expect(run.handle(.graceEnded) == [])
        _ = run.handle(Self.expensive)
        #expect(run.handle(.graceEnded) == [.say("restic still runs 10 s after SIGTERM; sending SIGKILL"),
                                             .signal(SIGKILL)])
        #expect(!run.isInGracePeriod)
        #expect(run.handle(.graceEnded) == [])
        #expect(run.handle(.commandEnded(.killed(signal: SIGKILL))) == [.end(.status(75))])
    }

    @Test("--restart: after the stop it waits, and starts again when the criteria hold again, saying so")
    func restarts() {
        var run = Self.supervisor(restarts: true)
        _ = run.handle(Self.free)
        _ = run.handle(Self.expensive)
        #expect(run.handle(.commandEnded(.killed(signal: SIGTERM))) == [])
        #expect(run.phase == .waiting(told: true))
        #expect(run.handle(Self.expensive) == [], "the reason was said when it stopped")
        #expect(run.handle(Self.free) == [.say("the criteria hold again (satisfied via eth0 (IPv4)); starting restic"),
                                          .start])
        // Holding again before the stopped command ended: started as soon as it ends.
        _ = run.handle(Self.expensive)
        _ = run.handle(Self.free)
        #expect(run.handle(.commandEnded(.exited(0))) == [
            .say("the criteria hold again (satisfied via eth0 (IPv4)); starting restic"), .start,
        ])
        // A command that ends on its own ends pathctl, --restart or not.
        #expect(run.handle(.commandEnded(.exited(0))) == [.end(.status(0))])
    }

    @Test("waiting is said once, however many paths do not hold; the start it waited for is said")
    func saysWaitingOnce() {
        var run = Self.supervisor()
        #expect(run.handle(Self.expensive) == [.say("waiting: the path is not satisfied: unsatisfied: the path via "
            + "usb0 is expensive, which the criteria exclude")])
        #expect(run.handle(.path(holds: false, why: "the path is not satisfied: unsatisfied: no route")) == [])
        #expect(run.handle(Self.expensive) == [])
        #expect(run.handle(Self.free) == [.say("the criteria hold (satisfied via eth0 (IPv4)); starting restic"),
                                          .start])
    }

    @Test("""
        signals: passed to a running or stopping command unless the terminal sent them; while waiting they end \
        pathctl
        """, arguments: RunSignals.forwarded)
    func signals(number: Int32) {
        var waiting = Self.supervisor()
        #expect(waiting.handle(.signal(number, fromTerminal: false)) == [.end(.signal(number))])
        var run = Self.supervisor()
        _ = run.handle(Self.free)
        #expect(run.handle(.signal(number, fromTerminal: false)) == [.signal(number)])
        #expect(run.handle(.signal(number, fromTerminal: true)) == [], "the command has it from the terminal")
        _ = run.handle(Self.expensive)
        #expect(run.handle(.signal(number, fromTerminal: false)) == [.signal(number)])
    }

    @Test("pathd lost for good: said and ended while waiting; a running command is stopped first, then its status")
    func pathdLost() {
        var waiting = Self.supervisor()
        #expect(waiting.handle(.pathdLost(message: "cannot reach pathd", status: 3))
            == [.say("cannot reach pathd"), .end(.status(3))])
        var run = Self.supervisor(restarts: true)
        _ = run.handle(Self.free)
        #expect(run.handle(.pathdLost(message: "lost pathd", status: 3))
            == [.say("lost pathd; stopping restic (SIGTERM)"), .signal(SIGTERM)])
        #expect(run.isInGracePeriod)
        #expect(run.handle(.commandEnded(.exited(0))) == [.end(.status(3))], "no restart: nothing can say it holds")
    }
}
