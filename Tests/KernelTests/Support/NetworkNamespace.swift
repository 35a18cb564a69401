import Foundation
import PathTestFixtures

/// A network namespace `pathd-kt-<random>` made with `ip netns add`.
///
/// Call `remove()` (tests do it through `VethTopology`); `deinit` is a backstop that removes
/// a namespace a failing setup left behind. Removal first kills every process still inside.
final class NetworkNamespace {
    let name: String
    private let ip: URL
    private var isRemoved = false

    init() throws {
        ip = try Command.find("ip")
        name = "pathd-kt-\(UInt32.random(in: 0 ... UInt32.max))"
        try Command.check(ip, ["netns", "add", name])
    }

    /// Runs `arguments` inside the namespace (`ip netns exec NAME ...`); throws with stderr on failure.
    @discardableResult
    func run(_ arguments: String...) throws -> String {
        try Command.check(ip, ["netns", "exec", name] + arguments)
    }

    /// Runs `ip ARGUMENTS` inside the namespace.
    @discardableResult
    func ip(_ arguments: String...) throws -> String {
        try Command.check(ip, ["-netns", name] + arguments)
    }

    /// The arguments that start `command` inside this namespace through `ip`.
    func execArguments(_ command: [String]) -> (executable: URL, arguments: [String]) {
        (ip, ["netns", "exec", name] + command)
    }

    /// Kills what still runs inside, then deletes the namespace.
    func remove() throws {
        guard !isRemoved else { return }
        let pids = try Command.check(ip, ["netns", "pids", name])
            .split(whereSeparator: \.isNewline)
            .compactMap { pid_t($0) }
        for pid in pids {
            // ESRCH: it exited between the listing and the kill, which is what we want.
            if kill(pid, SIGKILL) != 0 && errno != ESRCH {
                throw HarnessError.posix("kill(\(pid), SIGKILL) in namespace \(name)", errno: errno)
            }
        }
        try Command.check(ip, ["netns", "del", name])
        isRemoved = true
    }

    deinit {
        guard !isRemoved else { return }
        teardown("remove network namespace \(name)") { try remove() }
    }
}
