import Foundation

/// A directory made with mkdtemp(3) for one test's sockets and logs, removed with its contents.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/pathd-kt-XXXXXX").utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HarnessError.posix("mkdtemp", errno: errno)
        }
        url = URL(fileURLWithPath: String(cString: created), isDirectory: true)
    }

    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    public func remove() throws {
        try FileManager.default.removeItem(at: url)
    }
}
