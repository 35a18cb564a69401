// SPDX-License-Identifier: Apache-2.0
import CSystemCalls
import Glibc

/// A command run as this process's child with fork(2) and execvp(3), for `pathctl run`:
/// it gets this process's standard input, output and error, environment, working
/// directory and process group (so a terminal's Ctrl-C reaches it as it reaches pathctl),
/// a signal mask given by the caller (the one the process had before it blocked the
/// signals it waits for), and a parent-death signal (PR_SET_PDEATHSIG), so that it is
/// not left running when its parent is killed without a chance to stop it.
///
/// Not posix_spawn(3): it cannot set a parent-death signal. Between fork and exec the
/// child runs only system calls on values prepared before the fork (no allocation, no
/// lock: other threads of the parent may hold one), then exec's; if exec fails it writes
/// errno to a close-on-exec pipe and exits, and `spawn` throws with that errno.
public struct SpawnedCommand: Sendable {
    public let pid: pid_t

    /// How a child ended.
    public enum Termination: Hashable, Sendable {
        /// exit(3) with this status (0 to 255).
        case exited(Int32)
        /// Killed by this signal.
        case killed(signal: Int32)
    }

    /// Why the command did not start.
    public struct SpawnError: Error, Sendable, CustomStringConvertible {
        public enum Stage: Sendable {
            /// fork(2) or the pipe failed: nothing ran.
            case fork
            /// execvp(3) failed: `errno` says why (ENOENT: no such command).
            case exec
        }

        public let command: String
        public let stage: Stage
        public let errno: Errno

        /// The status a shell exits with for the same failure (POSIX, "Command Search
        /// and Execution"): 127 for a command not found, 126 for one found but not
        /// executable.
        public var shellStatus: Int32 {
            stage == .exec && (errno == .noSuchFile || errno == Errno(rawValue: ENOTDIR)) ? 127 : 126
        }

        public var description: String {
            switch stage {
            case .fork: "cannot start \(command): \(errno)"
            case .exec: "\(command): \(errno)"
            }
        }
    }

    /// Starts `arguments[0]`, looked up in PATH as a shell does, with `arguments` (none
    /// may be empty but the first must not be). The child's signal mask is `signalMask`
    /// and its parent-death signal `parentDeathSignal`, which it gets when the *thread*
    /// calling this ends (prctl(2)): call it from the main thread. Returns once the
    /// command runs; throws when it could not (an exec failure's child is reaped here).
    public static func spawn(_ arguments: [String], signalMask: sigset_t,
                             parentDeathSignal: Int32) throws(SpawnError) -> SpawnedCommand {
        let command = arguments.first ?? ""
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SpawnError(command: command, stage: .fork, errno: .current) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        let parent = getpid()
        var mask = signalMask
        let child = argv.withUnsafeBufferPointer { argv -> pid_t in
            let pid = fork()
            guard pid == 0 else { return pid }
            // The child: system calls only, until exec.
            // Without a parent-death signal, or with the parent already gone (it died
            // before prctl), the command would run unwatched: it does not run at all.
            if pathd_set_parent_death_signal(parentDeathSignal) == 0, getppid() == parent {
                _ = pthread_sigmask(SIG_SETMASK, &mask, nil)
                execvp(argv[0]!, argv.baseAddress!)
            }
            var code = errno
            _ = write(writeEnd, &code, MemoryLayout<Int32>.size)
            _exit(127)
        }
        let forkError = Errno.current
        close(writeEnd)
        guard child > 0 else { throw SpawnError(command: command, stage: .fork, errno: forkError) }
        // End of file (the pipe closed by exec) means the command runs; four bytes are
        // the errno of a failed exec. A read that fails (no documented way for a pipe but
        // EINTR, which syscall retries) leaves the child to be reaped as any other.
        var code: Int32 = 0
        guard case .success(MemoryLayout<Int32>.size) = syscallResult({
            read(readEnd, &code, MemoryLayout<Int32>.size)
        }) else { return SpawnedCommand(pid: child) }
        // It exits at once (status 127); reaped here, so that no caller waits for it.
        // waitpid fails only when SIGCHLD is ignored (the kernel reaped it already), and
        // nothing is lost then: the error thrown below is the whole story.
        var status: Int32 = 0
        _ = syscallResult { waitpid(child, &status, 0) }
        throw SpawnError(command: command, stage: .exec, errno: Errno(rawValue: code))
    }

    /// Sends `signal` (kill(2)); the error when it could not be sent.
    @discardableResult
    public func signal(_ signal: Int32) -> Errno? {
        kill(pid, signal) == 0 ? nil : .current
    }

    /// The termination, reaped (waitpid(2) without waiting); nil while it runs.
    public func reap() throws(Errno) -> Termination? {
        var status: Int32 = 0
        let reaped = try syscall { waitpid(pid, &status, WNOHANG) }
        guard reaped == pid else { return nil }
        // WIFEXITED and WTERMSIG are macros: the kernel's layout, as glibc's bits/waitstatus.h reads it.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .killed(signal: signal)
    }
}
