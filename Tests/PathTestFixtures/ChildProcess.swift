// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A long-running child started with posix_spawn(3) in a clean signal state.
///
/// Not Foundation's `Process`: Swift Testing runs tests on threads that block most signals, and
/// `Process` hands that mask (and the runner's ignored SIGPIPE) to the child, so a daemon under test
/// would never see SIGTERM. Here the child starts with an empty mask and every signal at its default,
/// as it would from a shell or systemd.
public final class ChildProcess {
    public let pid: pid_t
    private let exit = ExitSignal()

    /// Starts `executable` with `arguments` and this process's environment plus `environment`
    /// (`environment` alone if `replacesEnvironment`); stdin is /dev/null, stderr goes to
    /// `stderrPath`, stdout to `stdoutPath` (or /dev/null). `standardInput` and `standardOutput`,
    /// when given, are descriptors (a pipe's ends, say) that become the child's stdin and stdout
    /// instead; the caller still owns and closes them.
    public init(_ executable: URL, _ arguments: [String], stderrPath: String, stdoutPath: String? = nil,
                environment: [String: String] = [:], replacesEnvironment: Bool = false,
                standardInput: Int32? = nil, standardOutput: Int32? = nil) throws {
        try BlockingTest.requireOwnThread("running \(executable.lastPathComponent)")
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        posix_spawnattr_init(&attributes)
        posix_spawn_file_actions_init(&actions)
        defer {
            posix_spawnattr_destroy(&attributes)
            posix_spawn_file_actions_destroy(&actions)
        }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let standardOutput {
            posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        } else if let stdoutPath {
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Tests running beside this one hold pipes (another child's input, say); a daemon
        // that inherited a write end would keep their readers from seeing EOF.
        try Self.closeOtherDescriptors(in: &actions)

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = replacesEnvironment ? [:] : ProcessInfo.processInfo.environment
        variables.merge(environment) { _, added in added }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child = pid_t()
        let result = posix_spawn(&child, executable.path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw HarnessError.posix("posix_spawn(\(executable.path))", errno: result)
        }
        pid = child
        let exit = self.exit
        // The reaper thread holds only the pid and the signal, never `self`.
        Thread { [pid] in ChildProcess.reap(pid, into: exit) }.start()
    }

    public var isRunning: Bool { exit.termination == nil }

    /// posix_spawn_file_actions_addclosefrom_np (glibc 2.34) is declared only with
    /// _GNU_SOURCE, which Swift's Glibc module is not built with; found at run time instead.
    private static func closeOtherDescriptors(in actions: inout posix_spawn_file_actions_t) throws {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // RTLD_DEFAULT is a null handle in glibc.
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw HarnessError("posix_spawn_file_actions_addclosefrom_np not found: glibc older than 2.34")
        }
        let result = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        guard result == 0 else { throw HarnessError.posix("posix_spawn_file_actions_addclosefrom_np", errno: result) }
    }

    /// The termination once the child has exited, or nil if `deadline` passed first.
    public func wait(until deadline: Date) -> Termination? {
        exit.wait(until: deadline)
    }

    /// The termination, once the child has exited, however long that takes.
    public func wait() -> Termination {
        exit.wait()
    }

    public func send(_ signal: Int32) throws {
        // ESRCH: already exited (and perhaps not yet reaped); nothing left to signal.
        if Glibc.kill(pid, signal) != 0 && errno != ESRCH {
            throw HarnessError.posix("kill(\(pid), \(signal))", errno: errno)
        }
    }

    /// How the child ends, and the one place it is told to: SIGTERM, then a wait of
    /// `timeout`. A child still running then is killed and the call throws, since ignoring
    /// SIGTERM is a bug; `name` and `detail()` (its log, say) go into that error. A child
    /// that already exited is not signalled.
    @discardableResult
    public func terminate(_ name: String, timeout: Duration = .seconds(10),
                   detail: () throws -> String = { "" }) throws -> Termination {
        if let end = wait(until: Date()) { return end }
        try send(SIGTERM)
        if let end = wait(until: Date().addingTimeInterval(timeout.timeInterval)) { return end }
        try kill(name)
        throw HarnessError("\(name) (pid \(pid)) ignored SIGTERM for \(timeout) and was killed\(try detail())")
    }

    /// SIGKILL and a wait for the child to be gone.
    public func kill(_ name: String) throws {
        try send(SIGKILL)
        guard wait(until: Date().addingTimeInterval(10)) != nil else {
            throw HarnessError("\(name) (pid \(pid)) survived SIGKILL for 10 s")
        }
    }

    private static func reap(_ pid: pid_t, into exit: ExitSignal) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                exit.signal(Termination(status: errno, bySignal: false))
                return
            }
        }
        // WIFSIGNALED / WEXITSTATUS are macros Swift does not import: low 7 bits = signal, next byte = status.
        let signal = status & 0x7f
        exit.signal(signal == 0 ? Termination(status: (status >> 8) & 0xff, bySignal: false)
                                : Termination(status: signal, bySignal: true))
    }
}

/// The child's termination, set once by the reaper thread.
///
/// `@unchecked Sendable`: `termination` is only read and written with `condition` locked.
private final class ExitSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var stored: Termination?

    var termination: Termination? {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }

    func signal(_ termination: Termination) {
        condition.lock()
        stored = termination
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Termination {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let stored { return stored }
            condition.wait()
        }
    }

    public func wait(until deadline: Date) -> Termination? {
        condition.lock()
        defer { condition.unlock() }
        while stored == nil {
            if !condition.wait(until: deadline) {
                break
            }
        }
        return stored
    }
}
