// SPDX-License-Identifier: Apache-2.0
/// pathd's socket: where the daemon listens, where clients look for it (docs/PROTOCOL.md,
/// "Where the socket is"), and the one rule for a path named in pathd.conf (`Socket=`)
/// or with `--socket` to pathd, pathd-probe or pathctl. Every program's help text and
/// comment says the default with `defaultInWords` and `fallbacksInWords`, never in
/// words of its own. The GIO module (C) follows the same rules in pathd-socket.c.
public enum SocketPath {
    /// Where root's pathd listens, and where every client looks first.
    public static let systemPath = "/run/pathd/pathd.sock"
    /// The environment variable that names the socket for clients.
    public static let environmentVariable = "PATHD_SOCKET"
    /// The variables `clientSearchOrder` and `defaultPath` read.
    public static let environmentVariables = [environmentVariable, runtimeDirectoryVariable]
    /// Where any other user's pathd listens: below its runtime directory (as
    /// `systemctl --user` services do), so an unprivileged pathd needs no write access to /run.
    private static let runtimeDirectoryVariable = "XDG_RUNTIME_DIR"
    private static let userRelativePath = "pathd/pathd.sock"
    private static let userPathInWords = "$\(runtimeDirectoryVariable)/\(userRelativePath)"
    /// Where pathd listens by default, in words: "/run/pathd/pathd.sock for root, …".
    public static let defaultInWords = "\(systemPath) for root, \(userPathInWords) for other users"
    /// Where a client looks when neither `--socket` nor `$PATHD_SOCKET` names a socket,
    /// in words: "/run/pathd/pathd.sock, then …".
    public static let fallbacksInWords = "\(systemPath), then \(userPathInWords)"

    /// `sun_path` holds 108 bytes, the terminating NUL included (unix(7)).
    /// `UnixSocketAddress` (SystemCalls) builds the address itself; a test checks that
    /// its capacity is this limit.
    public static let maximumBytes = 107

    /// nil when `path` is acceptable, else what it must be ("an absolute path of at most
    /// 107 bytes"), for a message that names the key or flag. A daemon's must be absolute
    /// (it outlives the directory it was started in). The rule `UnixSocketAddress`
    /// (SystemCalls) applies when it builds the address: a test holds the two together.
    public static func expectation(for path: String, absolute: Bool) -> String? {
        let bytes = path.utf8
        // sun_path ends at its first NUL: the kernel would bind or connect to a shorter path.
        if bytes.contains(0) { return "a path with no NUL byte" }
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

    /// Where the daemon listens by default: the system socket for root, the user's
    /// runtime directory for everyone else. Throws, saying why, when a user other than
    /// root has no usable `XDG_RUNTIME_DIR` (the caller then says that `--socket` is needed).
    public static func defaultPath(userID: UInt32, environment: [String: String]) throws(NoDefaultPath) -> String {
        if userID == 0 { return systemPath }
        guard let runtime = environment[runtimeDirectoryVariable], !runtime.isEmpty else {
            throw NoDefaultPath(description: "\(runtimeDirectoryVariable) is not set")
        }
        guard let path = userPath(environment: environment) else {
            // The XDG Base Directory Specification: a relative path is invalid and is to be ignored.
            throw NoDefaultPath(description: "\(runtimeDirectoryVariable) is not an absolute path (\"\(runtime)\")")
        }
        guard path.utf8.count <= maximumBytes else {
            throw NoDefaultPath(description: "the default socket \"\(path)\" (in \(runtimeDirectoryVariable)) is "
                + "longer than \(maximumBytes) bytes")
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

    private static func userPath(environment: [String: String]) -> String? {
        guard let runtime = environment[runtimeDirectoryVariable], runtime.hasPrefix("/") else { return nil }
        return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/" + userRelativePath
    }
}
