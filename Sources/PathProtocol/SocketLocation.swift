import PathModel

/// Where the daemon listens, and where clients look for it. The one place both rules
/// are written (docs/PROTOCOL.md, "Where the socket is").
public enum SocketLocation {
    public static let systemPath = "/run/pathd/pathd.sock"
    /// The environment variable that names the socket for clients.
    public static let environmentVariable = "PATHD_SOCKET"

    /// Where the daemon listens by default: the system socket for root, the user's
    /// runtime directory for everyone else (as `systemctl --user` services do), so an
    /// unprivileged pathd needs no write access to /run. Throws, saying why, when a user
    /// other than root has no usable `XDG_RUNTIME_DIR` (the caller then says that
    /// `--socket` is needed).
    public static func defaultPath(userID: UInt32, environment: [String: String]) throws(NoDefaultPath) -> String {
        if userID == 0 { return systemPath }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            throw NoDefaultPath(description: "XDG_RUNTIME_DIR is not set")
        }
        guard let path = userPath(environment: environment) else {
            // The XDG Base Directory Specification: a relative path is invalid and is to be ignored.
            throw NoDefaultPath(description: "XDG_RUNTIME_DIR is not an absolute path (\"\(runtime)\")")
        }
        guard path.utf8.count <= SocketPath.maximumBytes else {
            throw NoDefaultPath(description: "the default socket \"\(path)\" (in XDG_RUNTIME_DIR) is longer than "
                + "\(SocketPath.maximumBytes) bytes")
        }
        return path
    }

    /// Why a user other than root has no default socket, in words.
    public struct NoDefaultPath: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
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
