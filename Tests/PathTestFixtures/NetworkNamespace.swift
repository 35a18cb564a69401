// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Glibc

/// A network namespace `pathd-test-<random>` made with `ip netns add`: the one way the
/// kernel and netlink tests make, enter and remove a namespace.
///
/// Call `remove()` (or tear it down with `teardown`); `deinit` is a backstop that removes
/// a namespace a failing setup left behind. Removal first kills every process still inside.
public final class NetworkNamespace {
    public let name: String
    private let ip: URL
    private var isRemoved = false

    public init() throws {
        ip = try Command.find("ip")
        name = "pathd-test-\(String(UInt32.random(in: 0 ... UInt32.max), radix: 16))"
        try Command.check(ip, ["netns", "add", name])
    }

    /// Runs `arguments` inside the namespace (`ip netns exec NAME ...`); throws with stderr on failure.
    @discardableResult
    public func run(_ arguments: String...) throws -> String {
        try Command.check(ip, ["netns", "exec", name] + arguments)
    }

    /// Runs `ip ARGUMENTS` inside the namespace.
    @discardableResult
    public func ip(_ arguments: String...) throws -> String {
        try ip(arguments)
    }

    /// Runs `ip ARGUMENTS` inside the namespace.
    @discardableResult
    public func ip(_ arguments: [String]) throws -> String {
        try Command.check(ip, ["-netns", name] + arguments)
    }

    /// The arguments that start `command` inside this namespace through `ip`.
    public func execArguments(_ command: [String]) -> (executable: URL, arguments: [String]) {
        (ip, ["netns", "exec", name] + command)
    }

    /// Runs `body` on a new thread that has joined this namespace (setns(2) affects only
    /// that thread, which then exits), so the sockets it opens belong to the namespace.
    ///
    /// The threads `body` starts stay in the namespace, and libdispatch starts a worker
    /// from whichever thread wakes it: a worker started here serves everyone afterwards,
    /// in this namespace. So code that needs the test process's own namespace joins it
    /// explicitly (`onHostThread`) instead of trusting the thread it runs on.
    public func onJoinedThread<Value>(_ body: @escaping () throws -> Value) throws -> Value {
        try Self.onThread(joining: "/var/run/netns/\(name)", body)
    }

    /// Runs `body` on a new thread that has joined the namespace the test process started
    /// in: its main thread's (/proc/self is the thread group's leader), which never joins
    /// another. For sockets that must be the host's, whatever thread asks.
    public static func onHostThread<Value>(_ body: @escaping () throws -> Value) throws -> Value {
        try onThread(joining: "/proc/self/ns/net", body)
    }

    private static func onThread<Value>(joining path: String, _ body: @escaping () throws -> Value) throws -> Value {
        let call = NamespaceCall(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                call.outcome = .failure(HarnessError.posix("open \(path)", errno: errno))
                return
            }
            let joined = joinNetworkNamespace(fd)
            let setnsError = errno
            close(fd)
            guard joined else {
                call.outcome = .failure(HarnessError.posix("setns(\(path))", errno: setnsError))
                return
            }
            call.outcome = Result { try call.body() }
        }
        thread.start()
        guard done.wait(timeout: .now() + 10) == .success else {
            throw HarnessError("the thread joining namespace \(path) did not finish within 10 s")
        }
        return try call.outcome!.get()
    }

    /// Kills what still runs inside, then deletes the namespace.
    public func remove() throws {
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

/// setns(2), looked up at run time: Glibc declares it only under _GNU_SOURCE, which the
/// Swift Glibc module does not define, and CSystemCalls declares only what pathd's own
/// programs call.
private func joinNetworkNamespace(_ fd: Int32) -> Bool {
    let cloneNewNet: Int32 = 0x4000_0000  // CLONE_NEWNET, <linux/sched.h>
    guard let libc = dlopen(nil, RTLD_NOW), let symbol = dlsym(libc, "setns") else {
        errno = ENOSYS
        return false
    }
    let setns = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    return setns(fd, cloneNewNet) == 0
}

/// One call of `onJoinedThread`. `@unchecked Sendable`: the thread writes `outcome`
/// before it signals, and the caller reads it only after the signal.
private final class NamespaceCall<Value>: @unchecked Sendable {
    let body: () throws -> Value
    var outcome: Result<Value, any Error>?

    init(_ body: @escaping () throws -> Value) { self.body = body }
}

/// Whether this machine lets the tests create network namespaces, probed once by trying it.
public struct NamespaceSupport: Sendable {
    public let isAvailable: Bool
    /// Why namespaces cannot be created (empty when they can).
    public let reason: String

    static func probe() -> NamespaceSupport {
        // Swift Testing evaluates `.enabled(if:)` on its pool: the probe is one short
        // `ip netns add` and `del`, once per run.
        BlockingTest.allowingBriefBlock { probeByTrying() }
    }

    private static func probeByTrying() -> NamespaceSupport {
        do {
            let namespace = try NetworkNamespace()
            try namespace.remove()
            return NamespaceSupport(isAvailable: true, reason: "")
        } catch {
            let user = getuid() == 0 ? "root" : "uid \(getuid())"
            return NamespaceSupport(isAvailable: false, reason: "`ip netns add` failed as \(user): \(error)")
        }
    }
}

/// Probed on first use, when Swift Testing evaluates a suite's `.enabled(if:)` trait.
public let namespaceSupport = NamespaceSupport.probe()
