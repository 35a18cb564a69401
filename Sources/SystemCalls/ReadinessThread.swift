// SPDX-License-Identifier: Apache-2.0
import CSystemCalls
import Glibc

/// A thread of its own that waits in poll(2) until a descriptor is readable and then
/// calls `onReadable`, on that thread, until `stop()`.
///
/// Why not a `DispatchSourceRead`: libdispatch watches descriptors from its one event
/// thread (epoll) and hands each event to a worker it wakes, so every event costs a
/// thread hand-off before the handler runs; a thread blocked on the descriptor itself
/// wakes once, as `ip monitor` does in recvmsg(2) (docs/PERFORMANCE.md, "One thread from
/// the kernel's event to the line"). Idle, the thread sleeps in poll: no wake-up.
///
/// `stop()` writes to an eventfd the thread polls too; the thread then calls `onStop`
/// (on itself) and ends. `onReadable` is never called after `stop()` returned and the
/// handler it may be running returned. `nudge()` writes to another: the thread calls
/// `onReadable` once more, as if the descriptor were readable, so that work queued
/// elsewhere is handed on by this thread, in order with what it reads.
public final class ReadinessThread: Sendable {
    /// What the thread does after `onReadable` returns.
    public enum Next: Sendable {
        /// Wait until the descriptor is readable again.
        case wait
        /// Call `onReadable` again at once: it stopped early (a budget) with data left.
        case callAgain
        /// End the thread, as `stop()` would.
        case stop
    }

    private let wakeup: FileDescriptor
    private let nudges: FileDescriptor

    /// Starts the thread. `name` is the thread's name (15 bytes at most are kept, as
    /// `ps -L` and `top -H` show it).
    public init(name: String, descriptor: Int32, onReadable: @escaping @Sendable () -> Next,
                onStop: @escaping @Sendable () -> Void) throws(Errno) {
        let event = try syscall { pathd_eventfd() }
        wakeup = FileDescriptor(rawValue: event)
        let nudge: Int32
        do {
            nudge = try syscall { pathd_eventfd() }
        } catch {
            wakeup.close()
            throw error
        }
        nudges = FileDescriptor(rawValue: nudge)
        let body = ThreadBody(name: name, descriptor: descriptor, wakeup: event, nudge: nudge,
                              onReadable: onReadable, onStop: onStop)
        let context = Unmanaged.passRetained(body).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            wakeup.close()
            nudges.close()
            throw Errno(rawValue: created)
        }
        pthread_detach(thread)
    }

    /// Ends the thread after the handler it may be running; callable from any thread,
    /// more than once. The eventfds close when the thread ends.
    public func stop() {
        Self.signal(wakeup)
    }

    /// Has the thread call `onReadable` once more soon, after the call it may be running;
    /// callable from any thread. Nudges before that call count as one.
    public func nudge() {
        Self.signal(nudges)
    }

    private static func signal(_ event: FileDescriptor) {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(event.rawValue, $0.baseAddress, $0.count) }
    }
}

/// What the thread runs; it owns the eventfds' closing.
private final class ThreadBody: Sendable {
    let name: String
    let descriptor: Int32
    let wakeup: Int32
    let nudge: Int32
    let onReadable: @Sendable () -> ReadinessThread.Next
    let onStop: @Sendable () -> Void

    init(name: String, descriptor: Int32, wakeup: Int32, nudge: Int32,
         onReadable: @escaping @Sendable () -> ReadinessThread.Next, onStop: @escaping @Sendable () -> Void) {
        self.name = name
        self.descriptor = descriptor
        self.wakeup = wakeup
        self.nudge = nudge
        self.onReadable = onReadable
        self.onStop = onStop
    }

    func run() {
        _ = pathd_set_thread_name(String(name.utf8.prefix(15)) ?? "pathd")
        defer {
            onStop()
            _ = close(wakeup)
            _ = close(nudge)
        }
        var next = ReadinessThread.Next.wait
        while true {
            if case .wait = next {
                var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: nudge, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&watched, 3, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return  // EFAULT, EINVAL, ENOMEM: nothing left to wait with
                }
                if watched[1].revents != 0 { return }
                if watched[2].revents != 0 { takeNudges() }
                if watched[0].revents == 0 && watched[2].revents == 0 { continue }
            } else if stopRequested() {
                return
            }
            next = onReadable()
            if case .stop = next { return }
        }
    }

    /// Resets the nudge eventfd (a read returns the count and zeroes it): the nudges so
    /// far are answered by the call that follows.
    private func takeNudges() {
        var count: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &count) { read(nudge, $0.baseAddress, $0.count) }
    }

    /// Whether `stop()` wrote to the eventfd (read without waiting).
    private func stopRequested() -> Bool {
        var watched = pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, 0) > 0
    }
}
