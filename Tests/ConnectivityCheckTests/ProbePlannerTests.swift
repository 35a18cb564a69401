// SPDX-License-Identifier: Apache-2.0
import ConnectivityCheck
import PathModel
import Testing

@Suite("when the probe checks")
struct ProbePlannerTests {
    static let timing = ProbePlanner.Timing(interval: .seconds(300), debounce: .seconds(1), minimumSpacing: .seconds(2),
                                            jitter: 0.1)

    static func satisfied(_ names: String...) -> Path {
        Path(status: .satisfied, availableInterfaces: names.enumerated().map {
            Interface(name: $0.element, index: InterfaceIndex(rawValue: Int32($0.offset + 2)), type: .wiredEthernet)
        }, supportsIPv4: true)
    }

    @Test("a change is checked a debounce later, through every interface; a burst pushes it back once")
    func debounce() {
        var planner = ProbePlanner(timing: Self.timing)
        planner.received(Self.satisfied("vA"), now: .seconds(10))
        #expect(planner.due == .seconds(11))
        planner.received(Self.satisfied("wg0", "vA"), now: .milliseconds(10_500))
        #expect(planner.due == .milliseconds(11_500))
        #expect(planner.startRound(now: .seconds(11)) == nil, "not yet due")
        #expect(planner.startRound(now: .milliseconds(11_500)) == ["wg0", "vA"])
    }

    @Test("a line that repeats the path (a new connectivity verdict, say) is no change")
    func repeatedPath() {
        var planner = ProbePlanner(timing: Self.timing)
        planner.received(Self.satisfied("vA"), now: .zero)
        _ = planner.startRound(now: .seconds(1))
        planner.finishRound(now: .seconds(2), random: 0.5)
        #expect(planner.due == .seconds(301))
        planner.received(Self.satisfied("vA"), now: .seconds(3))
        #expect(planner.due == .seconds(301))
    }

    @Test("while satisfied: every interval ± jitter after the last start")
    func periodic() {
        var planner = ProbePlanner(timing: Self.timing)
        planner.received(Self.satisfied("vA"), now: .zero)
        _ = planner.startRound(now: .seconds(1))
        planner.finishRound(now: .seconds(3), random: 0)
        #expect(planner.due == .seconds(271))
        _ = planner.startRound(now: .seconds(271))
        planner.finishRound(now: .seconds(272), random: 0.999_999)
        let due = planner.due ?? .zero
        #expect(due > .seconds(600) && due < .seconds(601))
    }

    @Test("never two rounds closer than the minimum spacing, however the path flaps or SIGHUP asks")
    func minimumSpacing() {
        var planner = ProbePlanner(timing: Self.timing)
        planner.received(Self.satisfied("vA"), now: .zero)
        #expect(planner.startRound(now: .seconds(1)) == ["vA"])
        planner.finishRound(now: .milliseconds(1100), random: 0.5)
        planner.checkNow(now: .milliseconds(1200))
        #expect(planner.due == .seconds(3))
        planner.received(Self.satisfied("vB"), now: .milliseconds(1300))
        #expect(planner.due == .seconds(3))
    }

    @Test("not satisfied, or pathd gone: nothing is due; back again: checked again even if the path is the same")
    func unsatisfiedAndReconnect() {
        var planner = ProbePlanner(timing: Self.timing)
        planner.received(Self.satisfied("vA"), now: .zero)
        planner.received(Path(status: .unsatisfied, unsatisfiedReason: .noRoute), now: .milliseconds(500))
        #expect(planner.due == nil)
        planner.checkNow(now: .seconds(1))
        #expect(planner.due == nil)
        planner.received(Self.satisfied("vA"), now: .seconds(5))
        #expect(planner.due == .seconds(6))
        planner.disconnected()
        #expect(planner.due == nil)
        planner.connected()
        planner.received(Self.satisfied("vA"), now: .seconds(9))
        #expect(planner.due == .seconds(10))
    }

    @Test("a change during a round is answered by another round after it")
    func changeDuringRound() {
        var planner = ProbePlanner(timing: Self.timing)
        planner.received(Self.satisfied("vA"), now: .zero)
        _ = planner.startRound(now: .seconds(1))
        planner.received(Self.satisfied("vA", "vB"), now: .milliseconds(1500))
        #expect(planner.due == nil && planner.isRunning)
        planner.finishRound(now: .seconds(4), random: 0.5)
        #expect(planner.due == .seconds(5))
        #expect(planner.startRound(now: .seconds(5)) == ["vA", "vB"])
    }
}
