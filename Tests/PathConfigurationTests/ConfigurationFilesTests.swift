// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathTestFixtures
import Testing
import PathConfiguration

@Suite("reading pathd.conf and its drop-ins")
struct ConfigurationFilesTests {
    /// Writes `text` to `name`, a path below `directory`, making the directories on the way.
    static func write(_ name: String, _ text: String, in directory: String) throws {
        let path = directory + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test("main file, then *.conf drop-ins in byte order; other names ignored")
    func order() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            try Self.write("pathd.conf", "[Daemon]\nMaxClients=1\n", in: directory)
            try Self.write("pathd.conf.d/20-b.conf", "[Daemon]\nMaxClients=3\n", in: directory)
            try Self.write("pathd.conf.d/10-a.conf", "[Daemon]\nMaxClients=2\n", in: directory)
            try Self.write("pathd.conf.d/B.conf", "[Daemon]\nLogLevel=debug\n", in: directory)
            try Self.write("pathd.conf.d/30-c.conf.disabled", "[Daemon]\nMaxClients=9\n", in: directory)
            try Self.write("pathd.conf.d/.hidden.conf", "[Daemon]\nMaxClients=9\n", in: directory)
            let files = ConfigurationFiles(mainPath: directory + "/pathd.conf", isMainRequired: true)
            let (result, read) = files.load()
            #expect(result.diagnostics.isEmpty)
            #expect(read.map { $0.replacingOccurrences(of: directory + "/", with: "") }
                == ["pathd.conf", "pathd.conf.d/10-a.conf", "pathd.conf.d/20-b.conf", "pathd.conf.d/B.conf"])
            #expect(result.configuration.daemon.maximumClients == 3)
            #expect(result.configuration.daemon.logLevel == .debug)
        }
    }

    @Test("a missing default file is the built-in default; a missing --config file is an error")
    func missing() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let absent = directory + "/absent.conf"
            let optional = ConfigurationFiles(mainPath: absent, isMainRequired: false).load()
            #expect(optional.result.isValid)
            #expect(optional.result.configuration == .builtIn)
            let required = ConfigurationFiles(mainPath: absent, isMainRequired: true).load()
            #expect(required.result.diagnostics.map(\.description)
                    == ["\(absent): cannot open: No such file or directory"])
        }
    }

    @Test("a directory where a file should be, and an oversized file, are errors")
    func notAFile() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            try FileManager.default.createDirectory(atPath: directory + "/pathd.conf.d/dir.conf",
                                                    withIntermediateDirectories: true)
            try Self.write("pathd.conf", String(repeating: "#", count: ConfigurationFiles.maximumFileBytes + 1),
                           in: directory)
            let (result, _) = ConfigurationFiles(mainPath: directory + "/pathd.conf").load()
            #expect(result.diagnostics.map(\.message) == ["is larger than \(ConfigurationFiles.maximumFileBytes) bytes",
                                                          "is not a regular file"])
            #expect(!result.isValid)
        }
    }
}
