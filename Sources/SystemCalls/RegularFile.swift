// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Reading small configuration-like files (pathd.conf, its drop-ins, resolv.conf)
/// without ever blocking: a FIFO or a device put where a file belongs would otherwise
/// hold `open(2)` or `read(2)` until somebody writes to it.
public enum RegularFile {
    /// Why a file could not be read, in words for a diagnostic.
    public struct ReadError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        /// The file (or a directory on its path) does not exist.
        public var isMissing: Bool

        public init(_ description: String, isMissing: Bool = false) {
            self.description = description
            self.isMissing = isMissing
        }

        static func errno(_ what: String, _ error: Errno) -> ReadError {
            ReadError("cannot \(what): \(error)", isMissing: error == .noSuchFile)
        }
    }

    /// The whole content of a regular file of at most `maximumBytes`. Opened with
    /// O_NONBLOCK (so opening a FIFO returns at once) and checked with `fstat` before
    /// any read: anything but a regular file is refused.
    public static func read(_ path: String, maximumBytes: Int) -> Result<[UInt8], ReadError> {
        let opened = syscallResult { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        let descriptor: FileDescriptor
        switch opened {
        case .success(let value): descriptor = FileDescriptor(rawValue: value)
        case .failure(let error): return .failure(.errno("open", error))
        }
        defer { descriptor.close() }
        let status: FileStatus
        do {
            status = try descriptor.status()
        } catch {
            return .failure(.errno("stat", error))
        }
        guard status.kind == .regular else { return .failure(ReadError("is not a regular file")) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let read = chunk.withUnsafeMutableBytes { raw in
                syscallResult { Glibc.read(descriptor.rawValue, raw.baseAddress, raw.count) }
            }
            let count: Int
            switch read {
            case .success(let value): count = value
            case .failure(let error): return .failure(.errno("read", error))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > maximumBytes {
                return .failure(ReadError("is larger than \(maximumBytes) bytes"))
            }
        }
    }

    /// `read(_:maximumBytes:)` as text; invalid UTF-8 becomes U+FFFD, so a parser then
    /// reports what it cannot use.
    public static func readText(_ path: String, maximumBytes: Int) -> Result<String, ReadError> {
        read(path, maximumBytes: maximumBytes).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// The process environment, read once per call (getenv(3)).
public enum Environment {
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The variables the socket search order reads, as a dictionary for pure code.
    public static func values(_ names: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for name in names {
            if let value = value(name) { result[name] = value }
        }
        return result
    }
}
