import CLinux
import SystemCalls

/// A failure of the netlink layer: what was being done and the code that said no.
public struct NetlinkError: Error, CustomStringConvertible, Sendable {
    /// Where a code came from: libnl return codes (`NLE_*`, `<netlink/errno.h>`) and
    /// errno values are different number spaces.
    public enum Code: Hashable, Sendable {
        /// A libnl error (`NLE_*`, positive), described by `nl_geterror`.
        case libnl(Int32)
        /// An errno value from a syscall or from a kernel NLMSG_ERROR reply.
        case errno(Int32)
        /// Not a C error: the kernel's reply did not make sense (truncated, wrong type…).
        case protocolViolation(String)
    }

    /// What pathd was doing, e.g. "dump links (RTM_GETLINK)".
    public var operation: String
    public var code: Code

    public init(operation: String, code: Code) {
        self.operation = operation
        self.code = code
    }

    public var description: String {
        switch code {
        case .libnl(let value):
            return "\(operation): libnl error \(value) (\(String(cString: nl_geterror(value))))"
        case .errno(let value):
            return "\(operation): errno \(value) (\(Errno(rawValue: value)))"
        case .protocolViolation(let text):
            return "\(operation): \(text)"
        }
    }
}

/// What a libnl call or a syscall on a netlink socket came to. Every return code of the
/// module goes through `NetlinkStatus.init(libnl:)` or `NetlinkStatus.init(syscall:)`,
/// the one place that knows EINTR, EAGAIN and ENOBUFS (as swift-system funnels every syscall through one helper).
enum NetlinkStatus {
    /// Success; the (non-negative) return value.
    case ok(Int)
    /// Interrupted by a signal: retry the same call.
    case interrupted
    /// Non-blocking socket with nothing queued (EAGAIN / EWOULDBLOCK, -NLE_AGAIN).
    case wouldBlock
    /// The kernel dropped messages because the receive buffer was full (ENOBUFS from
    /// recvmsg; libnl reports it as -NLE_NOMEM, see docs/ARCHITECTURE.md, "Toolchain and kernel facts").
    case overrun
    /// Anything else.
    case failed(NetlinkError.Code)

    /// A libnl return value: negative `NLE_*` on failure.
    init(libnl result: Int32) {
        if result >= 0 { self = .ok(Int(result)); return }
        switch -result {
        case NLE_INTR: self = .interrupted
        case NLE_AGAIN: self = .wouldBlock
        case NLE_NOMEM: self = .overrun
        default: self = .failed(.libnl(-result))
        }
    }

    /// A syscall return value; reads `errno` when it is negative, so call it right away.
    init(syscall result: Int) {
        if result >= 0 { self = .ok(result); return }
        self.init(errno: Errno.current.rawValue)
    }

    /// An errno value (from a failed syscall).
    init(errno value: Int32) {
        switch value {
        case EINTR: self = .interrupted
        case EAGAIN, EWOULDBLOCK: self = .wouldBlock
        case ENOBUFS: self = .overrun
        default: self = .failed(.errno(value))
        }
    }

    /// The value on success; otherwise a `NetlinkError` naming `operation`. For calls
    /// where "would block" or an overrun cannot happen (setup, blocking requests).
    func get(_ operation: @autoclosure () -> String) throws(NetlinkError) -> Int {
        switch self {
        case .ok(let value): return value
        case .interrupted: throw NetlinkError(operation: operation(), code: .errno(EINTR))
        case .wouldBlock: throw NetlinkError(operation: operation(), code: .errno(EAGAIN))
        case .overrun: throw NetlinkError(operation: operation(), code: .errno(ENOBUFS))
        case .failed(let code): throw NetlinkError(operation: operation(), code: code)
        }
    }
}
