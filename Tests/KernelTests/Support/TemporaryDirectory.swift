import Foundation

/// A directory made with mkdtemp(3) for one test's sockets and logs, removed with its contents.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/pathd-kt-XXXXXX").utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HarnessError.posix("mkdtemp", errno: errno)
        }
        url = URL(fileURLWithPath: String(cString: created), isDirectory: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    func remove() throws {
        try FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards, whether
/// `body` returns or throws; a failed removal is recorded as an issue.
func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) throws -> Result) throws -> Result {
    let directory = try TemporaryDirectory()
    defer { teardown("remove \(directory.url.path)") { try directory.remove() } }
    return try body(directory)
}
