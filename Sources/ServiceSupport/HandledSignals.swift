// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemCalls

/// SIGTERM, SIGINT and SIGHUP (pathd and pathd-probe): blocked in every thread from the first statement of main,
/// and taken with sigwaitinfo(2) by the main thread, which has nothing else to do.
///
/// Why not `DispatchSource.makeSignalSource` and `dispatchMain()`: the signal must then
/// be ignored, the source registers asynchronously, and `dispatchMain()` parks the main
/// thread in sigsuspend(2) with an empty mask. A SIGTERM that came once the socket
/// accepted but before the registration landed was discarded, and pathd went on serving
/// (seen as a test flake under load). A blocked signal is never discarded: it stays
/// pending until sigwaitinfo takes it, however early it came.
public enum HandledSignals {
    public static let numbers: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    static var set: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in numbers { sigaddset(&signals, number) }
        return signals
    }

    /// Blocks them in the calling thread. Called before any other thread exists, so
    /// every thread inherits the mask and none can take the signal's default action.
    public static func block() -> Errno? {
        var signals = set
        let result = pthread_sigmask(SIG_BLOCK, &signals, nil)
        return result == 0 ? nil : Errno(rawValue: result)
    }

    /// Takes each handled signal as it comes and passes it to `handler`; never returns.
    /// The handler runs on the calling thread and should hop to the state queue.
    public static func receive(log: Logger, _ handler: (Int32) -> Void) -> Never {
        var signals = set
        while true {
            let number = sigwaitinfo(&signals, nil)
            if number >= 0 {
                handler(number)
            } else if Errno.current != .interrupted {
                // Only EINVAL is documented, for a set that cannot be waited on.
                log.error("sigwaitinfo failed: \(Errno.current); exiting")
                exit(1)
            }
        }
    }

    public static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}
