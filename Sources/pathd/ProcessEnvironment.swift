// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import ServiceSupport
import SystemCalls

/// Process-wide set-up that belongs to the executable, not to the service.
enum ProcessEnvironment {
    /// The socket to listen on without `--socket` or `Socket=`. For a user other than
    /// root without a usable XDG_RUNTIME_DIR, the error says why and what to do, as a
    /// start and `--check-config` both report it (exit status 1: the environment, not
    /// the command line, is wrong).
    static func defaultSocketPath() throws(NoSocketPath) -> String {
        do {
            return try SocketPath.defaultPath(userID: getuid(),
                                              environment: Environment.values(SocketPath.environmentVariables))
        } catch {
            throw NoSocketPath(reason: error)
        }
    }

    struct NoSocketPath: Error, CustomStringConvertible {
        let reason: SocketPath.NoDefaultPath
        var description: String { "\(reason); give the socket path with --socket PATH or Socket=" }
    }

    /// Where the history file goes: the first directory of `$STATE_DIRECTORY`, which
    /// systemd sets for `StateDirectory=` (colon-separated when there are several); nil
    /// without it, and the history then stays in memory.
    static var stateDirectory: String? {
        guard let value = Environment.value("STATE_DIRECTORY"),
              let first = value.split(separator: ":").first, !first.isEmpty else { return nil }
        return String(first)
    }

    static func prepare(log: Logger) {
        // A client that hangs up mid-write must not kill the daemon; sends also use
        // MSG_NOSIGNAL, this covers every other write.
        signal(SIGPIPE, SIG_IGN)
        // The state queue runs on whichever Dispatch thread is free; with an arena per
        // thread, the memory of a burst of clients freed in one arena was not reused by
        // the next burst on another (RSS grew by the burst's size each time).
        if !Memory.useOneArena() { log.warning("cannot limit malloc to one arena") }
        // Each client is a descriptor: take the whole hard limit so the client limit,
        // not RLIMIT_NOFILE, decides how many are served.
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
                log.warning("cannot raise the open-file limit: \(Errno.current)")
            }
        }
    }
}
