// SPDX-License-Identifier: Apache-2.0
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
/// module goes through `NetlinkStatus.init(libnl:)` or `NetlinkStatus.init(syscall:)`.
/// libnl's codes are classified here, the one place that knows them; errno is
/// SystemCalls' (`syscallResult` retries EINTR and types the rest as `Errno`), and only
/// mapped here onto what a netlink socket makes of it.
enum NetlinkStatus {
    /// Success; the (non-negative) return value.
    case ok(Int)
    /// Interrupted by a signal (libnl's -NLE_INTR): retry the same call. A syscall is
    /// never: `syscallResult` retries EINTR itself.
    case interrupted
    /// Non-blocking socket with nothing queued (EAGAIN / EWOULDBLOCK, -NLE_AGAIN).
    case wouldBlock
    /// The kernel dropped messages because the receive buffer was full (ENOBUFS from
    /// recvmsg; libnl reports it as -NLE_NOMEM, see docs/KERNEL.md, "Toolchain and kernel facts").
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

    /// A syscall that returns -1 and sets errno on failure, made through `syscallResult`.
    init<Result: BinaryInteger>(syscall call: () -> Result) {
        switch syscallResult(call) {
        case .success(let value): self = .ok(Int(value))
        case .failure(let error): self.init(errno: error)
        }
    }

    /// A failed syscall's errno.
    init(errno: Errno) {
        switch errno {
        case .wouldBlock: self = .wouldBlock
        case .noBufferSpace: self = .overrun
        default: self = .failed(.errno(errno.rawValue))
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
