/// The one rule for a Unix socket path named in pathd.conf (`Socket=`) or with `--socket`
/// to pathd, pathd-probe or pathctl: it must fit in `sun_path` (unix(7): 108 bytes, the
/// terminating NUL included), and a daemon's must be absolute (it outlives the directory
/// it was started in). `UnixSocketAddress` (SystemCalls) builds the address itself; a
/// daemon test checks that its capacity is this limit.
public enum SocketPath {
    public static let maximumBytes = 107

    /// nil when `path` is acceptable, else what it must be ("an absolute path of at most
    /// 107 bytes"), for a message that names the key or flag.
    public static func expectation(for path: String, absolute: Bool) -> String? {
        let bytes = path.utf8
        if absolute {
            guard path.hasPrefix("/"), bytes.count <= maximumBytes else {
                return "an absolute path of at most \(maximumBytes) bytes"
            }
        } else {
            guard !bytes.isEmpty, bytes.count <= maximumBytes else {
                return "a path of 1 to \(maximumBytes) bytes"
            }
        }
        return nil
    }
}
