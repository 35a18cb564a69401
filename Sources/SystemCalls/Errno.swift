// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A C `errno` value, typed. The message is `strerror(3)`'s.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`; set, for code that must keep it across other calls.
    public static var current: Errno {
        get { Errno(rawValue: errno) }
        set { errno = newValue.rawValue }
    }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    /// From a netlink socket's receive: the kernel dropped messages (an overrun).
    public static let noBufferSpace = Errno(rawValue: ENOBUFS)

    public var description: String { String(cString: strerror(rawValue)) }
}

/// Runs a system call that returns -1 and sets errno on failure, retrying on EINTR:
/// the one place where errno becomes a typed error. Inlinable, so that each caller's
/// `Result` is known where it is compiled: compiled once for every integer type, each
/// comparison went through the type's witnesses (every read of the event socket,
/// before the change's line).
@inlinable
@discardableResult
public func syscall<Result: BinaryInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if error != .interrupted { throw error }
    }
}

/// `syscall` for call sites inside non-throwing closures (the standard library's
/// buffer accessors are `rethrows`, so a typed error does not survive them).
public func syscallResult<Result: BinaryInteger>(_ call: () -> Result) -> Swift.Result<Result, Errno> {
    do {
        return .success(try syscall(call))
    } catch {
        return .failure(error)
    }
}
