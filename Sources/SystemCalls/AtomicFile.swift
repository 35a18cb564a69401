// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Replacing a whole file so that a reader sees the old content or the new, never a
/// part: the new bytes go to a temporary file in the same directory (so the rename
/// stays on one file system), are flushed with fsync(2), and rename(2) puts them in
/// place in one step. node_exporter's textfile collector and pathd's history
/// compaction rely on it.
public enum AtomicFile {
    /// Writes `bytes` to `path` with permission bits `mode` (set with fchmod(2), so the
    /// process umask does not narrow them: a metrics file must be readable by the
    /// exporter's user). With `syncDirectory`, the directory is flushed too, so that
    /// the rename survives a power loss. The temporary file starts with a dot and ends
    /// in a random suffix, never in the target's extension: node_exporter reads only
    /// `*.prom`. On failure the temporary file is removed and `path` is untouched.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644,
                               syncDirectory: Bool = false) throws(Errno) {
        let (directory, name) = splitPath(path)
        var temporary = ""
        var descriptor = FileDescriptor(rawValue: -1)
        for _ in 0..<16 {
            temporary = "\(directory)/.\(name).\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
            do {
                descriptor = FileDescriptor(rawValue: try syscall {
                    open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
                })
                break
            } catch where error == Errno(rawValue: EEXIST) {
                continue
            }
        }
        guard descriptor.rawValue >= 0 else { throw Errno(rawValue: EEXIST) }
        do {
            defer { descriptor.close() }
            try descriptor.writeAll(bytes)
            try syscall { fchmod(descriptor.rawValue, mode) }
            try syscall { fsync(descriptor.rawValue) }
        } catch {
            unlink(temporary)
            throw error
        }
        do {
            try syscall { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        if syncDirectory { try self.syncDirectory(directory) }
    }

    /// fsync(2) of a directory: makes a rename or a new file in it durable.
    public static func syncDirectory(_ directory: String) throws(Errno) {
        let descriptor = FileDescriptor(rawValue: try syscall { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
        defer { descriptor.close() }
        try syscall { fsync(descriptor.rawValue) }
    }

}

/// A file opened for appending whole lines (O_APPEND): each line goes out in one
/// write(2), so a process killed at any moment leaves every earlier line complete and
/// at most the last one torn. Owns its descriptor: `close()` once.
public final class AppendOnlyFile {
    public let path: String
    private var descriptor: FileDescriptor?

    /// Opens (creating with `mode` if needed) `path` for appending.
    public init(path: String, mode: mode_t = 0o644) throws(Errno) {
        self.path = path
        descriptor = FileDescriptor(rawValue: try syscall {
            open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode)
        })
    }

    /// Appends `bytes` (a whole line, newline included).
    public func append(_ bytes: [UInt8]) throws(Errno) {
        guard let descriptor else { throw Errno(rawValue: EBADF) }
        try descriptor.writeAll(bytes)
    }

    /// fdatasync(2): the appended lines survive a power loss.
    public func sync() throws(Errno) {
        guard let descriptor else { throw Errno(rawValue: EBADF) }
        try syscall { fdatasync(descriptor.rawValue) }
    }

    public func close() {
        descriptor?.close()
        descriptor = nil
    }

    deinit {
        assert(descriptor == nil, "AppendOnlyFile \(path) was not closed")
    }
}
