// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A directory made with mkdtemp(3) for one test's files, sockets and logs, removed with
/// its contents: the one temporary directory of the tests.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/pathd-test-XXXXXX").utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HarnessError.posix("mkdtemp", errno: errno)
        }
        url = URL(fileURLWithPath: String(cString: created), isDirectory: true)
    }

    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Lets every user reach what is in it (mkdtemp makes it 0700): a socket there for
    /// clients run as nobody.
    public func openToOthers() throws {
        guard chmod(url.path, 0o755) == 0 else { throw HarnessError.posix("chmod 0755 \(url.path)", errno: errno) }
    }

    public func remove() throws {
        try FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards, whether
/// `body` returns or throws; a failed removal is recorded as an issue.
public func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) throws -> Result) throws -> Result {
    let directory = try TemporaryDirectory()
    defer { teardown("remove \(directory.url.path)") { try directory.remove() } }
    return try body(directory)
}

/// `withTemporaryDirectory` for a test that runs daemons itself: `body` gets the socket
/// path they listen on, `pathd.sock` in the temporary directory.
public func withSocketDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    try withTemporaryDirectory { try body($0.path("pathd.sock")) }
}

/// Makes the directory `path` (its parent must exist) with mode 0755 set by chmod(2), not
/// left to the umask: the umask is process-wide, and the daemon tests in this process bind
/// their sockets under umask 0111 for an instant (UnixListener), so a directory that
/// FileManager or mkdir made then had mode 0666, and a user other than root could not
/// enter it (pathd as 65534 failed to listen in it with "Permission denied").
public func makeDirectory(_ path: String, owner: (uid: uid_t, gid: gid_t)? = nil) throws {
    guard mkdir(path, 0o755) == 0 else { throw HarnessError.posix("mkdir \(path)", errno: errno) }
    guard chmod(path, 0o755) == 0 else { throw HarnessError.posix("chmod 0755 \(path)", errno: errno) }
    if let owner, chown(path, owner.uid, owner.gid) != 0 {
        throw HarnessError.posix("chown \(owner.uid):\(owner.gid) \(path)", errno: errno)
    }
}
