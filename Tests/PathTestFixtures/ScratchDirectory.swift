import Foundation
import Testing

/// A new directory for one test under the temporary directory; `removeScratchDirectory`
/// removes it. Tests use `withScratchDirectory`; `DaemonHarness` keeps one as long as it runs.
public func makeScratchDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pathd-test-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
}

/// Removes `path` with what it holds; a failure is recorded as an issue, not thrown.
public func removeScratchDirectory(_ path: String) {
    do {
        try FileManager.default.removeItem(atPath: path)
    } catch {
        Issue.record("cannot remove \(path): \(error)")
    }
}

/// Runs `body` with a directory of its own, removed with what it holds afterwards,
/// whether `body` returns or throws.
public func withScratchDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let path = try makeScratchDirectory()
    defer { removeScratchDirectory(path) }
    return try body(path)
}

/// `withScratchDirectory` for a test that runs daemons itself: `body` gets the socket
/// path they listen on, `pathd.sock` in the scratch directory.
public func withSocketDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    try withScratchDirectory { try body($0 + "/pathd.sock") }
}
