// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathTestFixtures
import Synchronization
import SystemCalls
import Testing

@Suite("atomic file replacement")
struct AtomicFileTests {
    /// Version `number` of the file: a header, a body whose length varies with the
    /// number (so a torn read cannot look whole), and a trailer naming the same number.
    static func version(_ number: Int) -> [UInt8] {
        let body = String(repeating: "x", count: (number * 7919) % 20_000)
        return Array("begin \(number)\n\(body)\nend \(number)\n".utf8)
    }

    /// Whether `bytes` is exactly one version.
    static func isWhole(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("begin "), let newline = text.firstIndex(of: "\n"),
              let number = Int(text[text.index(text.startIndex, offsetBy: 6)..<newline]) else { return false }
        return bytes == version(number)
    }

    @Test("a reader running meanwhile sees the old file or the new one, never a part, and no temporary file stays")
    func readerNeverSeesAPartialFile() throws {
        try withTemporaryDirectory { directory in try readerNeverSeesAPartialFile(in: directory.url.path) }
    }

    private func readerNeverSeesAPartialFile(in directory: String) throws {
        let path = directory + "/pathd.prom"
        try AtomicFile.replace(path, with: Self.version(0))

        let done = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let torn = Mutex<[String]>([])
        // Signalled after each read, and once more when the reader has stopped.
        let readDone = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        let reader = Thread {
            defer { stopped.signal() }
            while !done.load(ordering: .acquiring) {
                // Opened anew each time, as node_exporter does for every scrape.
                guard let data = FileManager.default.contents(atPath: path) else {
                    torn.withLock { $0.append("the file was missing") }
                    continue
                }
                reads.add(1, ordering: .relaxed)
                if !Self.isWhole(Array(data)) {
                    torn.withLock {
                        $0.append(String(decoding: data.prefix(40), as: UTF8.self) + "… (\(data.count) bytes)")
                    }
                }
                readDone.signal()
            }
        }
        reader.start()
        // On a throw too: a reader left running would spin for the rest of the test run.
        defer { done.store(true, ordering: .releasing) }
        for number in 1...400 { try AtomicFile.replace(path, with: Self.version(number)) }
        // Let the reader read the last version at least once more before it stops (the
        // second read after `before` began after the last replacement).
        let before = reads.load(ordering: .relaxed)
        let deadline = DispatchTime.now() + 10
        while reads.load(ordering: .relaxed) < before + 2 && readDone.wait(timeout: deadline) == .success {}
        done.store(true, ordering: .releasing)
        // `torn` is final only once the reader has stopped.
        try #require(stopped.wait(timeout: .now() + 10) == .success, "the reader thread did not stop within 10 s")

        #expect(torn.withLock { $0 }.isEmpty, "partial reads: \(torn.withLock { $0.prefix(5) })")
        #expect(reads.load(ordering: .relaxed) > before, "the reader never read after the last replacement")
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == Self.version(400))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(left == ["pathd.prom"], "temporary files left: \(left)")
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o644)
    }

    @Test("a failed replacement leaves the old file and no temporary file")
    func failureLeavesTheOldFile() throws {
        try withTemporaryDirectory { directory in try failureLeavesTheOldFile(in: directory.url.path) }
    }

    private func failureLeavesTheOldFile(in directory: String) throws {
        // The target is a directory: rename(2) over it fails with EISDIR.
        let target = directory + "/taken"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        #expect(throws: Errno.self) { try AtomicFile.replace(target, with: Self.version(1)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["taken"])
        #expect(throws: Errno.self) { try AtomicFile.replace(directory + "/absent/pathd.prom", with: []) }
    }
}
