// SPDX-License-Identifier: Apache-2.0
import CSystemCalls
import Glibc

/// An open file descriptor, typed (as swift-system's `FileDescriptor`). It does not own
/// the descriptor: whoever opened it closes it, once.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    /// The corresponding C function is `close`. EINTR is not retried: on Linux the
    /// descriptor is released even then, and a retry could close a reused number.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// Writes every byte, retrying EINTR and short writes: for blocking descriptors
    /// (stdout, stderr, a client socket). The corresponding C function is `write`.
    public func writeAll<Bytes: Collection>(_ bytes: Bytes) throws(Errno) where Bytes.Element == UInt8 {
        try transferAll(bytes) { Glibc.write(rawValue, $0, $1) }
    }

    /// Sends every byte on a socket without raising SIGPIPE (MSG_NOSIGNAL), retrying
    /// EINTR and short sends. The corresponding C function is `send`.
    public func sendAll<Bytes: Collection>(_ bytes: Bytes) throws(Errno) where Bytes.Element == UInt8 {
        try transferAll(bytes) { Glibc.send(rawValue, $0, $1, Int32(MSG_NOSIGNAL)) }
    }

    /// Calls `transfer` with the rest of the bytes until it took them all.
    private func transferAll<Bytes: Collection>(_ bytes: Bytes, _ transfer: (UnsafeRawPointer, Int) -> Int)
        throws(Errno) where Bytes.Element == UInt8 {
        let whole = Array(bytes)
        var offset = 0
        while offset < whole.count {
            offset += try whole.withUnsafeBytes { raw in
                syscallResult { transfer(raw.baseAddress! + offset, raw.count - offset) }
            }.get()
        }
    }

    /// The file's type and identity (`fstat(2)`).
    public func status() throws(Errno) -> FileStatus {
        var info = stat()
        try syscall { fstat(rawValue, &info) }
        return FileStatus(info)
    }

    /// Accepts one pending connection, non-blocking and close-on-exec (`accept4(2)`).
    public func acceptConnection() throws(Errno) -> FileDescriptor {
        let flags = Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
        return FileDescriptor(rawValue: try syscall { accept4(rawValue, nil, nil, flags) })
    }

    /// The credentials of a Unix socket's peer (`SO_PEERCRED`, unix(7)). `struct ucred`
    /// is a GNU extension; its layout (pid, uid, gid) is the kernel's.
    public func peerCredentials() throws(Errno) -> PeerCredentials {
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        try syscall { getsockopt(rawValue, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
        return PeerCredentials(processID: credentials.pid, userID: credentials.uid, groupID: credentials.gid)
    }
}

/// Who is at the other end of a Unix socket, as the kernel recorded it at connect time.
public struct PeerCredentials: Hashable, Sendable {
    public var processID: Int32
    public var userID: UInt32
    public var groupID: UInt32

    public init(processID: Int32, userID: UInt32, groupID: UInt32) {
        self.processID = processID
        self.userID = userID
        self.groupID = groupID
    }
}

/// What `stat(2)` says about a file: its type and its identity (device, inode).
public struct FileStatus: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case regular, directory, socket, fifo, symbolicLink, characterDevice, blockDevice, unknown
    }

    public var kind: Kind
    public var device: UInt64
    public var inode: UInt64
    public var size: Int

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFSOCK: kind = .socket
        case S_IFIFO: kind = .fifo
        case S_IFLNK: kind = .symbolicLink
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        default: kind = .unknown
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int(info.st_size)
    }

    /// `lstat(2)`: the path itself, not what a symbolic link points to.
    public static func of(linkAt path: String) throws(Errno) -> FileStatus {
        var info = stat()
        try syscall { lstat(path, &info) }
        return FileStatus(info)
    }

    /// Whether both name the same file.
    public func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }
}
