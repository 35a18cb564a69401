/// Where the daemon listens and clients connect when no `--socket` is given: the
/// system socket for root, the user's runtime directory for everyone else (as
/// `systemctl --user` services do), so an unprivileged pathd needs no write access
/// to /run.
public enum SocketLocation {
    public static let systemPath = "/run/pathd/pathd.sock"

    /// The default socket path for a user id and environment; nil when a non-root user
    /// has no `XDG_RUNTIME_DIR` (the caller then says that `--socket` is needed).
    public static func defaultPath(userID: UInt32, environment: [String: String]) -> String? {
        if userID == 0 { return systemPath }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/pathd/pathd.sock"
    }
}
