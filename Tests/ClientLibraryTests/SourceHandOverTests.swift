// SPDX-License-Identifier: Apache-2.0
import PathClient
import PathModel
import PathSocketClient
import Testing

/// The hand-over between pathd and the engine in this process (docs/ARCHITECTURE.md,
/// "Client library"), transition by transition, with no daemon, engine, queue or clock:
/// an engine is a name here. (A transition mutates, so each is made before its #expect.)
@Suite("SourceHandOver")
struct SourceHandOverTests {
    typealias HandOver = SourceHandOver<String>

    static let gone = PathClientError("pathd went away", kind: .closed)

    /// An `.automatic` hand-over, started, whose engine "first" was adopted after the wait.
    static func automaticOnEngine() -> (HandOver, UInt64) {
        var handOver = HandOver(mode: .automatic)
        _ = handOver.start()
        #expect(handOver.daemonWaitElapsed())
        let epoch = handOver.adopt("first")
        #expect(epoch != nil)
        return (handOver, epoch ?? 0)
    }

    @Test("start opens by mode, once; nothing after cancel", arguments: [
        (PathMonitor.Mode.automatic, HandOver.Opening.daemon(engineAfter: PathMonitor.daemonAnswerWait)),
        (.daemon, .daemon(engineAfter: nil)),
        (.inProcess, .inProcess),
    ])
    func opening(mode: PathMonitor.Mode, expected: HandOver.Opening) {
        var handOver = HandOver(mode: mode)
        #expect(handOver.phase == .idle)
        let early = handOver.adopt("early")
        #expect(early == nil, "no engine before start")
        let opening = handOver.start()
        #expect(opening == expected)
        #expect(handOver.isRunning)
        let again = handOver.start()
        #expect(again == nil, "a second start does nothing")

        var cancelled = HandOver(mode: mode)
        let stopped = cancelled.cancel()
        let afterCancel = cancelled.start()
        #expect(stopped == nil)
        #expect(afterCancel == nil, "no start after cancel")
        #expect(cancelled.phase == .cancelled)
    }

    @Test("the engine's answers serve until the daemon answers, which stops the engine and drops its late answers")
    func daemonWins() {
        let (started, epoch) = Self.automaticOnEngine()
        var handOver = started
        let taken = handOver.engineAnswered(epoch: epoch)
        #expect(taken)
        #expect(handOver.source == .inProcess)

        handOver.daemonConnected(socketPath: "/run/pathd/pathd.sock")
        #expect(handOver.accepts(epoch: epoch), "connected is no answer yet")
        let stopped = handOver.daemonAnswered(generation: .first)
        #expect(stopped == "first", "the owner cancels the engine")
        #expect(handOver.engine == nil)
        let daemon = PathMonitor.Source.daemon(socketPath: "/run/pathd/pathd.sock", generation: .first, connection: 1)
        #expect(handOver.source == daemon)
        let late = handOver.engineAnswered(epoch: epoch)
        let lateFailure = handOver.engineFailed(epoch: epoch, reason: "late")
        #expect(!late, "a late answer of the stopped engine")
        #expect(lateFailure == nil)
        #expect(handOver.source == daemon)
        #expect(!handOver.daemonWaitElapsed())
        let second = handOver.adopt("second")
        #expect(second == nil, "no engine while the daemon answers")
    }

    @Test(".automatic: a lost daemon starts a new engine, whose epoch alone is taken; the next connection counts on")
    func automaticFailover() {
        var handOver = HandOver(mode: .automatic)
        _ = handOver.start()
        handOver.daemonConnected(socketPath: "/s")
        let noEngine = handOver.daemonAnswered(generation: .first)
        #expect(noEngine == nil, "no engine ran")
        #expect(handOver.lastError == nil)

        let after = handOver.daemonDisconnected(Self.gone)
        #expect(after == .startEngine)
        #expect(handOver.lastError == Self.gone)
        #expect(handOver.source == .daemon(socketPath: "/s", generation: .first, connection: 1),
                "the answer stays until the engine answers")
        let epoch = handOver.adopt("engine") ?? 0
        let another = handOver.adopt("another")
        #expect(epoch != 0)
        #expect(another == nil, "one engine at a time")
        let older = handOver.engineAnswered(epoch: epoch &- 1)
        let current = handOver.engineAnswered(epoch: epoch)
        #expect(!older, "an older epoch")
        #expect(current)
        #expect(handOver.source == .inProcess)

        handOver.daemonConnected(socketPath: "/s")
        #expect(handOver.lastError == nil, "a daemon accepted")
        let stopped = handOver.daemonAnswered(generation: .first)
        #expect(stopped == "engine")
        #expect(handOver.source == .daemon(socketPath: "/s", generation: .first, connection: 2))
    }

    @Test(".daemon: a lost daemon makes the answer unknown and starts no engine")
    func daemonOnly() {
        var handOver = HandOver(mode: .daemon)
        _ = handOver.start()
        handOver.daemonConnected(socketPath: "/s")
        _ = handOver.daemonAnswered(generation: .first)
        let after = handOver.daemonDisconnected(Self.gone)
        #expect(after == .unknown)
        #expect(handOver.source == .none)
        #expect(handOver.lastError == Self.gone)
        #expect(!handOver.daemonAnswers)
    }

    @Test("a failed engine is stopped and recorded; nothing serves; a new one may start")
    func engineFails() {
        let (started, epoch) = Self.automaticOnEngine()
        var handOver = started
        _ = handOver.engineAnswered(epoch: epoch)
        let failed = handOver.engineFailed(epoch: epoch, reason: "no netlink")
        #expect(failed?.stopped == "first")
        #expect(failed?.error.description == "the in-process engine cannot watch the kernel: no netlink")
        #expect(handOver.lastError == failed?.error)
        #expect(handOver.source == .none)
        #expect(handOver.engine == nil)
        #expect(!handOver.accepts(epoch: epoch))
        let next = handOver.adopt("second")
        #expect(next != nil, "a later disconnection starts one again")
    }

    @Test("configuration problems are recorded unless a failure already is")
    func configurationProblems() {
        var handOver = HandOver(mode: .inProcess)
        _ = handOver.start()
        handOver.engineIgnoredConfiguration(["line 3: unknown key", "line 9: bad value"])
        let expected = "pathd.conf has problems; the in-process engine uses the built-in policy: "
            + "line 3: unknown key; line 9: bad value"
        #expect(handOver.lastError?.description == expected)
        handOver.engineIgnoredConfiguration(["other"])
        #expect(handOver.lastError?.description == expected, "the first is kept")
    }

    @Test("cancel stops the engine and drops everything it still sends")
    func cancel() {
        let (started, epoch) = Self.automaticOnEngine()
        var handOver = started
        let stopped = handOver.cancel()
        #expect(stopped == "first")
        #expect(!handOver.isRunning)
        #expect(!handOver.accepts(epoch: epoch))
        #expect(!handOver.daemonWaitElapsed())
        let late = handOver.adopt("second")
        let again = handOver.cancel()
        #expect(late == nil)
        #expect(again == nil, "a second cancel has nothing to stop")
    }
}
