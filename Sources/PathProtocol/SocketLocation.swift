/// Where the daemon listens, and where clients look for it. The one place both rules
/// are written (docs/PROTOCOL.md, "Where the socket is").
public enum SocketLocation {
    public static let systemPath = "/run/pathd/pathd.sock"
    /// The environment variable that names the socket for clients.
    public static let environmentVariable = "PATHD_SOCKET"

    /// Where the daemon listens by default: the system socket for root, the user's
    /// runtime directory for everyone else (as `systemctl --user` services do), so an
    /// unprivileged pathd needs no write access to /run. nil when a non-root user has
    /// no absolute `XDG_RUNTIME_DIR` (the caller then says that `--socket` is needed).
    public static func defaultPath(userID: UInt32, environment: [String: String]) -> String? {
        if userID == 0 { return systemPath }
        return userPath(environment: environment)
    }

    /// Where a client looks, in order, and takes the first that answers:
    /// 1. `explicit` (`--socket`, a `socketPath:` argument), alone;
    /// 2. else `$PATHD_SOCKET`, alone;
    /// 3. else the system socket, then `$XDG_RUNTIME_DIR/pathd/pathd.sock`.
    /// So every user finds the system daemon, and a user's own daemon where there is
    /// no system one.
    public static func clientSearchOrder(explicit: String?, environment: [String: String]) -> [String] {
        if let explicit { return [explicit] }
        if let named = environment[environmentVariable], !named.isEmpty { return [named] }
        return [systemPath] + (userPath(environment: environment).map { [$0] } ?? [])
    }

    /// The variables `clientSearchOrder` and `defaultPath` read.
    public static let environmentVariables = [environmentVariable, "XDG_RUNTIME_DIR"]

    private static func userPath(environment: [String: String]) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/pathd/pathd.sock"
    }
}
