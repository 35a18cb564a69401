// SPDX-License-Identifier: Apache-2.0
import Glibc
import Synchronization
import SystemCalls

/// Where `pathctl run`'s main thread waits: in sigwaitinfo(2) (sigtimedwait(2) while a
/// grace period runs) for SIGCHLD, the signals it passes to the command, and a wake-up
/// from the subscription's thread. Blocked in every thread from `run`'s first statement
/// (no other thread exists yet, and each inherits the mask), so none is lost and none
/// takes its default action; between two events nothing in pathctl runs: no timer, no
/// polling (docs/PERFORMANCE.md, "pathctl run").
final class RunSignals: Sendable {
    /// Passed on to the command, unless the terminal sent them to the whole process
    /// group (which the command is in): hangup, interrupt, quit, terminate, and the two
    /// user signals.
    static let forwarded: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2]

    /// The signal the subscription's thread wakes the main thread with: the first
    /// real-time signal glibc leaves to programs.
    private let wake = __libc_current_sigrtmin()
    private let mainThread = pthread_self()
    /// The mask the process had before `run` blocked these: the command's.
    let originalMask: sigset_t
    private let waited: sigset_t
    private let inbox = Mutex<[RunSupervisor.Event]>([])

    /// Blocks the signals in the calling (main) thread, before any other thread exists.
    init() {
        var waited = sigset_t()
        sigemptyset(&waited)
        for number in Self.forwarded + [SIGCHLD, wake] { sigaddset(&waited, number) }
        var original = sigset_t()
        pthread_sigmask(SIG_BLOCK, &waited, &original)
        originalMask = original
        self.waited = waited
        // An ignored SIGCHLD (inherited from a parent that set it) would have the kernel
        // reap the command before pathctl learns how it ended.
        signal(SIGCHLD, SIG_DFL)
    }

    /// From any thread: hands `event` to the main thread and wakes it.
    func post(_ event: RunSupervisor.Event) {
        inbox.withLock { $0.append(event) }
        pthread_kill(mainThread, wake)
    }

    /// On the main thread: waits for the next events, at most until `deadline` (then
    /// `.graceEnded`). SIGCHLD becomes `command`'s end when it ended.
    func next(until deadline: ContinuousClock.Instant?, command: SpawnedCommand?) -> [RunSupervisor.Event] {
        var set = waited
        var info = siginfo_t()
        let number: Int32
        if let deadline {
            let left = deadline - .now
            guard left > .zero else { return [.graceEnded] }
            let (seconds, attoseconds) = left.components
            var timeout = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            number = sigtimedwait(&set, &info, &timeout)
        } else {
            number = sigwaitinfo(&set, &info)
        }
        // EAGAIN: the deadline passed (checked on the next call); EINTR: a signal outside
        // the set (SIGCONT after a stop) interrupted the wait.
        guard number > 0 else { return [] }
        switch number {
        case SIGCHLD:
            return command.flatMap(Self.ended).map { [.commandEnded($0)] } ?? []
        case wake:
            return inbox.withLock { events in
                defer { events.removeAll() }
                return events
            }
        default:
            return [.signal(number, fromTerminal: info.si_code == SI_KERNEL)]
        }
    }

    /// How `command` ended, reaped; nil while it runs. Reaping fails only for a child
    /// that is not ours to wait for, which cannot be the command (SIGCHLD is not ignored).
    private static func ended(_ command: SpawnedCommand) -> SpawnedCommand.Termination? {
        switch Result(catching: { () throws(Errno) in try command.reap() }) {
        case .success(let termination): termination
        case .failure(let error): preconditionFailure("waitpid(\(command.pid)) failed: \(error)")
        }
    }

    /// Ends pathctl as `outcome` says: with its status, or by its signal, as the command
    /// ended (so that the parent, a shell or systemd, sees what it would have seen
    /// without pathctl in between). A signal whose default is not to end the process is
    /// an exit with 128 + its number, as a shell reports a signal.
    static func end(_ outcome: RunSupervisor.Outcome) -> Never {
        switch outcome {
        case .status(let status):
            exit(status)
        case .signal(let number):
            // No core dump of pathctl's for a command's SIGSEGV or SIGQUIT: the command
            // dumped its own.
            var limit = rlimit(rlim_cur: 0, rlim_max: 0)
            setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
            signal(number, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, number)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(number)
            exit(128 + number)
        }
    }
}
