// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Glibc
import SystemCalls

/// The listening Unix stream socket. It owns its descriptor and, when it bound the
/// socket file itself, removes that file (and only that file) on `close()`.
public final class UnixListener {
    public let path: String
    /// The listening descriptor. Owned: closed only by `close()`.
    public let descriptor: FileDescriptor
    private var isClosed = false
    /// The socket file this process bound (device and inode), so that stopping never
    /// removes a file somebody else put at the path since; nil when systemd passed the
    /// socket in or the file was removed already.
    private var boundFile: FileStatus?

    private init(path: String, descriptor: FileDescriptor, boundFile: FileStatus?) {
        self.path = path
        self.descriptor = descriptor
        self.boundFile = boundFile
    }

    deinit {
        assert(isClosed, "UnixListener for \(path) leaked its descriptor")
    }

    /// Binds `path` (creating its directory), mode 0666 so that every local user may ask.
    /// A socket file nobody listens on (left by a crashed run) is replaced; a live
    /// daemon on the path is an error.
    ///
    /// The mode is set by the umask around bind(2) (`withUmask`), never by a chmod of
    /// the path afterwards.
    public static func bind(path: String, backlog: Int32 = 128) throws(DaemonError) -> UnixListener {
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            throw DaemonError("\(error)")
        }
        try createParentDirectory(of: path)
        try removeStaleSocket(at: path, address: address)
        let socket: FileDescriptor
        do {
            socket = try UnixSocket.stream(nonBlocking: true)
        } catch {
            throw DaemonError("cannot create a Unix socket: \(error)")
        }
        let bound: FileStatus
        do {
            // The kernel creates the file with mode 0777 & ~umask (net/unix/af_unix.c,
            // unix_bind): 0666.
            let result = withUmask(0o111) {
                address.withSockaddr { pointer, length in
                    syscallResult { Glibc.bind(socket.rawValue, pointer, length) }
                }
            }
            _ = try result.get()
            bound = try FileStatus.of(linkAt: path)
            try syscall { listen(socket.rawValue, backlog) }
        } catch {
            socket.close()
            throw DaemonError("cannot listen on \(path): \(error)")
        }
        return UnixListener(path: path, descriptor: socket, boundFile: bound)
    }

    /// Adopts a listening socket passed by systemd socket activation (sd_listen_fds(3)),
    /// or returns nil when none was passed.
    public static func fromActivation() throws(DaemonError) -> UnixListener? {
        let count = sd_listen_fds(1)
        if count < 0 { throw DaemonError("sd_listen_fds failed: \(Errno(rawValue: -count))") }
        if count == 0 { return nil }
        guard count == 1 else { throw DaemonError("systemd passed \(count) sockets; pathd expects exactly one") }
        let fd = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
            throw DaemonError("the socket systemd passed is not a listening Unix stream socket")
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw DaemonError("cannot make the activated socket non-blocking: \(Errno.current)")
        }
        return UnixListener(path: "(socket activation, fd \(fd))", descriptor: FileDescriptor(rawValue: fd),
                            boundFile: nil)
    }

    /// Stops listening and removes the socket file if this process bound it.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        descriptor.close()
        removeFile()
    }

    /// Removes the socket file if it is still the one this process bound (same device
    /// and inode), so no new client finds it; the descriptor stays open until `close()`.
    /// A file another daemon bound at the same path since is left alone.
    public func removeFile() {
        guard let bound = boundFile else { return }
        boundFile = nil
        switch Result(catching: { () throws(Errno) in try FileStatus.of(linkAt: path) }) {
        case .success(let current) where current.isSameFile(as: bound):
            unlink(path)
        case .success, .failure:
            break  // replaced by another file, or gone: not ours to remove
        }
    }

    /// Creates the socket's directory if it is missing, mode 0755 whatever pathd's umask:
    /// a 0666 socket in a directory only root may enter would serve root alone.
    private static func createParentDirectory(of path: String) throws(DaemonError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 { return }
        if withUmask(0o022, { mkdir(directory, 0o755) }) != 0 && Errno.current != Errno(rawValue: EEXIST) {
            throw DaemonError("cannot create directory \(directory): \(Errno.current)")
        }
    }

    /// Runs `body` with the process's umask set to `mask`, so that what it creates gets
    /// its mode at creation, never by a chmod of a path afterwards (in a directory other
    /// users can write, the path could be swapped for a symbolic link between the two
    /// calls, and chmod would follow it). The umask is process-wide: pathd binds before
    /// it starts any thread that creates files. errno is kept from `body`.
    private static func withUmask<Result>(_ mask: mode_t, _ body: () -> Result) -> Result {
        let previous = umask(mask)
        let result = body()
        let error = Errno.current
        umask(previous)
        Errno.current = error
        return result
    }

    private static func removeStaleSocket(at path: String, address: UnixSocketAddress) throws(DaemonError) {
        let existing: FileStatus
        do {
            existing = try FileStatus.of(linkAt: path)
        } catch {
            return
        }
        guard existing.kind == .socket else {
            throw DaemonError("\(path) exists and is not a socket; refusing to replace it")
        }
        switch Result(catching: { () throws(Errno) in try UnixSocket.connect(to: address) }) {
        case .success(let probe):
            probe.close()
            throw DaemonError("another pathd is already listening on \(path)")
        case .failure(.connectionRefused):
            break
        case .failure(let failure):
            throw DaemonError("cannot tell whether \(path) is in use: \(failure)")
        }
        // Nobody accepts on it: a crashed run left it behind.
        guard unlink(path) == 0 || Errno.current == .noSuchFile else {
            throw DaemonError("cannot remove stale socket \(path): \(Errno.current)")
        }
    }
}
