import Foundation
import PathDaemon
import PathEngine
import PathModel
import Testing

@Suite("reading pathd.conf and its drop-ins")
struct ConfigurationFilesTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathd-conf-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory + "/pathd.conf.d", withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
    }

    func cleanUp() {
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            Issue.record("cannot remove \(directory): \(error)")
        }
    }

    @Test("main file, then *.conf drop-ins in byte order; other names ignored")
    func order() throws {
        defer { cleanUp() }
        try write("pathd.conf", "[Daemon]\nMaxClients=1\n")
        try write("pathd.conf.d/20-b.conf", "[Daemon]\nMaxClients=3\n")
        try write("pathd.conf.d/10-a.conf", "[Daemon]\nMaxClients=2\n")
        try write("pathd.conf.d/B.conf", "[Daemon]\nLogLevel=debug\n")
        try write("pathd.conf.d/30-c.conf.disabled", "[Daemon]\nMaxClients=9\n")
        try write("pathd.conf.d/.hidden.conf", "[Daemon]\nMaxClients=9\n")
        let files = ConfigurationFiles(mainPath: directory + "/pathd.conf", isMainRequired: true)
        let (result, read) = files.load()
        #expect(result.diagnostics.isEmpty)
        #expect(read.map { $0.replacingOccurrences(of: directory + "/", with: "") }
            == ["pathd.conf", "pathd.conf.d/10-a.conf", "pathd.conf.d/20-b.conf", "pathd.conf.d/B.conf"])
        #expect(result.configuration.daemon.maximumClients == 3)
        #expect(result.configuration.daemon.logLevel == .debug)
    }

    @Test("a missing default file is the built-in default; a missing --config file is an error")
    func missing() throws {
        defer { cleanUp() }
        let absent = directory + "/absent.conf"
        let optional = ConfigurationFiles(mainPath: absent, isMainRequired: false).load()
        #expect(optional.result.isValid)
        #expect(optional.result.configuration == .builtIn)
        let required = ConfigurationFiles(mainPath: absent, isMainRequired: true).load()
        #expect(required.result.diagnostics.map(\.description) == ["\(absent): cannot open: No such file or directory"])
    }

    @Test("a directory where a file should be, and an oversized file, are errors")
    func notAFile() throws {
        defer { cleanUp() }
        try FileManager.default.createDirectory(atPath: directory + "/pathd.conf.d/dir.conf", withIntermediateDirectories: true)
        try write("pathd.conf", String(repeating: "#", count: ConfigurationFiles.maximumFileBytes + 1))
        let (result, _) = ConfigurationFiles(mainPath: directory + "/pathd.conf").load()
        #expect(result.diagnostics.map(\.message) == ["is larger than \(ConfigurationFiles.maximumFileBytes) bytes",
                                                      "is not a regular file"])
        #expect(!result.isValid)
    }
}
