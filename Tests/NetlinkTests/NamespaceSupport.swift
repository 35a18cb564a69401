import Dispatch
import Foundation
import Glibc
import PathTestFixtures
import Testing
@testable import Netlink

/// Runs `ip` with `arguments`; throws with its stderr when it fails.
@discardableResult
func ip(_ arguments: String...) throws -> String {
    try ip(arguments)
}

@discardableResult
func ip(_ arguments: [String]) throws -> String {
    try Command.check(URL(fileURLWithPath: "/usr/sbin/ip"), arguments)
}

/// A new namespace's name, `pathd-nl-<random>`.
func makeNamespaceName() -> String {
    "pathd-nl-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
}

/// Deletes a namespace, reporting (not hiding) a failure.
func deleteNamespace(_ name: String) {
    do { try ip("netns", "del", name) } catch { Issue.record("cleanup: \(error)") }
}

let canUseNamespaces = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")

/// setns(2), looked up at run time: Glibc declares it only under _GNU_SOURCE, which the
/// Swift Glibc module does not define.
private func joinNetworkNamespace(_ fd: Int32) -> Bool {
    let cloneNewNet: Int32 = 0x4000_0000  // CLONE_NEWNET, <linux/sched.h>
    guard let libc = dlopen(nil, RTLD_NOW), let symbol = dlsym(libc, "setns") else { return false }
    let setns = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    return setns(fd, cloneNewNet) == 0
}

/// Runs `body` on a new thread that has joined namespace `name` (setns affects only
/// that thread, which then exits), so the sockets it opens belong to the namespace.
func inNetworkNamespace<Value>(_ name: String, _ body: @escaping () throws -> Value) throws -> Value {
    let call = NamespaceCall(body)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        defer { done.signal() }
        let fd = open("/var/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0, joinNetworkNamespace(fd) else {
            call.outcome = Result.failure(HarnessError("setns(\(name)): \(String(cString: strerror(errno)))"))
            return
        }
        close(fd)
        call.outcome = Result { try call.body() }
    }
    thread.start()
    guard done.wait(timeout: .now() + 10) == .success else { throw HarnessError("setns thread timed out") }
    return try call.outcome!.get()
}

/// One call of `inNetworkNamespace`. `@unchecked Sendable`: the thread writes
/// `outcome` before it signals, and the caller reads it only after the signal.
private final class NamespaceCall<Value>: @unchecked Sendable {
    let body: () throws -> Value
    var outcome: Result<Value, any Error>?

    init(_ body: @escaping () throws -> Value) { self.body = body }
}

/// Starts `monitor` with its sockets created inside namespace `name`: the namespace's
/// thread runs `start()`, which opens the sockets through `queue.sync` on the calling thread.
func start(_ monitor: NetlinkMonitor, on queue: DispatchQueue, inNamespace name: String) throws {
    try inNetworkNamespace(name) {
        let caller = pthread_self()
        try queue.sync {
            guard pthread_equal(caller, pthread_self()) != 0 else {
                throw HarnessError("queue.sync ran on another thread; sockets would not be in the namespace")
            }
        }
        // start() opens the sockets through the monitor queue's `sync`, on this thread.
        monitor.start()
    }
}
