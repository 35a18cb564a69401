// SPDX-License-Identifier: Apache-2.0
import PathModel
import SystemCalls

/// The history on disk: `history.jsonl` in the state directory, one JSON object per
/// line (`HistoryEntry.encodedLine()`), appended with one write(2) per entry.
///
/// - **Crash-safe:** appending never rewrites what is there, so `kill -9` or a crash
///   loses at most the line being written. A torn or unreadable line is skipped with a
///   warning when the file is read, and the file is then rewritten without it.
/// - **Bounded:** the file holds between `capacity` and `2 × capacity` lines. When an
///   append takes it past that, it is compacted: the newest `capacity` entries are
///   written to a temporary file, flushed, and renamed over it (`AtomicFile`), so a
///   crash during compaction leaves the old file or the new one, never a mix.
/// - **Durable:** each line reaches the kernel at once (so it survives the process);
///   fdatasync(2), which costs a disk flush, is done by the owner at most once a second.
///
/// Threading: used on the state queue only (its owner's).
final class HistoryFile {
    static let fileName = "history.jsonl"
    /// A line longer than this is not one pathd wrote.
    static let maximumLineBytes = 16 * 1024

    let path: String
    private let capacity: Int
    private var appender: AppendOnlyFile?
    /// Lines in the file (complete ones), to know when to compact.
    private var lineCount = 0
    /// The file must be rewritten before the next append: it held lines that could not
    /// be read, or a write failed and may have left a torn line (which the next append
    /// must not continue).
    private var needsRewrite = false

    /// What reading an existing file found.
    struct Loaded {
        var entries: [HistoryEntry]
        /// Lines that could not be read, each with its number and why, for the log.
        var skipped: [String]
    }

    /// The file in `directory`, not opened yet: `load()`, then `resume(_:)`.
    init(directory: String, capacity: Int) {
        path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        self.capacity = capacity
    }

    /// The newest `capacity` entries the file holds (none when it does not exist),
    /// read even where it cannot be written.
    func load() throws(HistoryFileError) -> Loaded {
        let maximumBytes = 2 * capacity * Self.maximumLineBytes + Self.maximumLineBytes
        switch RegularFile.read(path, maximumBytes: maximumBytes) {
        case .success(let bytes):
            let (loaded, lines) = Self.parse(bytes, capacity: capacity)
            lineCount = lines
            needsRewrite = !loaded.skipped.isEmpty || lines > loaded.entries.count
            return loaded
        case .failure(let error) where error.isMissing:
            return Loaded(entries: [], skipped: [])
        case .failure(let error):
            throw HistoryFileError(path: path, what: "cannot read it: \(error)")
        }
    }

    /// Opens the file for appending; rewrites it first with `entries` (all its owner
    /// keeps) when it held unreadable lines or too many, or after a failed write. Called
    /// again after a failure, this is the retry. Any failure leaves the file closed.
    func resume(_ entries: @autoclosure () -> [HistoryEntry]) throws(HistoryFileError) {
        do throws(HistoryFileError) {
            if needsRewrite {
                try compact(entries())
            } else if appender == nil {
                try openAppender()
            }
        } catch {
            // Entries recorded until the retry are in memory only: it must write them.
            needsRewrite = true
            throw error
        }
    }

    /// Every complete, readable line of `bytes`, newest `capacity` kept; a last line
    /// without its newline is torn (the process died while writing it).
    static func parse(_ bytes: [UInt8], capacity: Int) -> (Loaded, lines: Int) {
        var entries: [HistoryEntry] = []
        var skipped: [String] = []
        var lines = 0
        var number = 0
        var start = bytes.startIndex
        while start < bytes.endIndex {
            number += 1
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                skipped.append("line \(number): torn (no newline at the end of the file); skipped")
                break
            }
            let line = bytes[start..<newline]
            start = newline + 1
            lines += 1
            do {
                entries.append(try HistoryEntry.decode(line: line))
            } catch {
                skipped.append("line \(number): \(error.description); skipped")
            }
        }
        return (Loaded(entries: Array(entries.suffix(capacity)), skipped: skipped), lines)
    }

    /// Appends one entry; compacts to `entries` (the newest, as its owner keeps them,
    /// this one included) when the file would pass twice the capacity.
    func append(_ entry: HistoryEntry, keeping entries: @autoclosure () -> [HistoryEntry]) throws(HistoryFileError) {
        guard let appender else { throw HistoryFileError(path: path, what: "is closed") }
        if lineCount + 1 > 2 * capacity {
            try compact(entries())
            return
        }
        do {
            try appender.append(entry.encodedLine())
        } catch {
            fail()
            throw HistoryFileError(path: path, what: "cannot append to it: \(error)")
        }
        lineCount += 1
    }

    /// fdatasync(2): what was appended survives a power loss.
    func sync() throws(HistoryFileError) {
        do {
            try appender?.sync()
        } catch {
            fail()
            throw HistoryFileError(path: path, what: "cannot flush it: \(error)")
        }
    }

    /// After a failed write: closed, and rewritten whole by the next `resume`.
    private func fail() {
        close()
        needsRewrite = true
    }

    func close() {
        appender?.close()
        appender = nil
    }

    /// Replaces the file with `entries` in one rename, then appends to the new file.
    private func compact(_ entries: [HistoryEntry]) throws(HistoryFileError) {
        close()
        needsRewrite = true
        do {
            try AtomicFile.replace(path, with: entries.flatMap { $0.encodedLine() }, mode: 0o644, syncDirectory: true)
        } catch {
            throw HistoryFileError(path: path, what: "cannot rewrite it: \(error)")
        }
        needsRewrite = false
        lineCount = entries.count
        try openAppender()
    }

    private func openAppender() throws(HistoryFileError) {
        do {
            appender = try AppendOnlyFile(path: path, mode: 0o644)
        } catch {
            throw HistoryFileError(path: path, what: "cannot open it for appending: \(error)")
        }
    }

    deinit { close() }
}

/// A history file that could not be used; the history then stays in memory.
struct HistoryFileError: Error, CustomStringConvertible {
    let path: String
    let what: String
    var description: String { "\(path): \(what)" }
}
