import CLinux
import Glibc
import PathModel

/// The listening Unix stream socket. It owns its descriptor and, when it created the
/// socket file itself, removes the file on `close()`.
public final class UnixListener {
    public let path: String
    /// The listening descriptor; -1 once closed. Owned: closed only by `close()`.
    public private(set) var descriptor: Int32
    /// Whether this process created the file (not when systemd passed the socket in).
    private var ownsFile: Bool

    private init(path: String, descriptor: Int32, ownsFile: Bool) {
        self.path = path
        self.descriptor = descriptor
        self.ownsFile = ownsFile
    }

    deinit {
        assert(descriptor == -1, "UnixListener for \(path) leaked its descriptor")
    }

    /// Binds `path` (creating its directory), mode 0666 so that every local user may ask.
    /// A socket file nobody listens on (left by a crashed run) is replaced; a live
    /// daemon on the path is an error.
    public static func bind(path: String, backlog: Int32 = 128) throws(DaemonError) -> UnixListener {
        let address = try UnixSocketAddress(path: path)
        try createParentDirectory(of: path)
        try removeStaleSocket(at: path, address: address)
        let fd: Int32
        do {
            fd = try syscall { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0) }
        } catch {
            throw DaemonError("cannot create a Unix socket: \(error)")
        }
        do {
            // bind creates the file with the umask applied; chmod afterwards.
            _ = try address.withSockaddr { pointer, length throws(Errno) in try syscall { Glibc.bind(fd, pointer, length) } }
            try syscall { chmod(path, 0o666) }
            try syscall { listen(fd, backlog) }
        } catch {
            _ = Glibc.close(fd)
            throw DaemonError("cannot listen on \(path): \(error)")
        }
        return UnixListener(path: path, descriptor: fd, ownsFile: true)
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
        return UnixListener(path: "(socket activation, fd \(fd))", descriptor: fd, ownsFile: false)
    }

    /// Stops listening and removes the socket file if this process created it.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
        removeFile()
    }

    /// Removes the socket file if this process created it, so no new client finds it;
    /// the descriptor stays open until `close()`.
    public func removeFile() {
        guard ownsFile else { return }
        ownsFile = false
        unlink(path)
    }

    private static func createParentDirectory(of path: String) throws(DaemonError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 { return }
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw DaemonError("cannot create directory \(directory): \(Errno.current)")
        }
    }

    private static func removeStaleSocket(at path: String, address: UnixSocketAddress) throws(DaemonError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & Glibc.S_IFMT == Glibc.S_IFSOCK else {
            throw DaemonError("\(path) exists and is not a socket; refusing to replace it")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw DaemonError("cannot create a Unix socket: \(Errno.current)") }
        defer { _ = Glibc.close(probe) }
        let connected = address.withSockaddr { connect(probe, $0, $1) }
        if connected == 0 {
            throw DaemonError("another pathd is already listening on \(path)")
        }
        let failure = Errno.current
        guard failure == .connectionRefused else {
            throw DaemonError("cannot tell whether \(path) is in use: \(failure)")
        }
        // Nobody accepts on it: a crashed run left it behind.
        guard unlink(path) == 0 || errno == ENOENT else {
            throw DaemonError("cannot remove stale socket \(path): \(Errno.current)")
        }
    }
}
