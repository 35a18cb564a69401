// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// What a program links, by `ldd`: needs no namespace, so it runs everywhere.
@Suite("Client programs' libraries", .blocking)
struct ClientLibraries {
    static func libraries(of program: String) throws -> [String] {
        let output = try Command.check(try Command.find("ldd"), [try BuiltProduct.url(program).path])
        return output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("pathctl and SocketOnlyMonitor link neither libnl nor libsystemd",
          arguments: ["pathctl", "SocketOnlyMonitor"])
    func socketOnly(program: String) throws {
        let libraries = try Self.libraries(of: program)
        #expect(libraries.contains { $0.hasPrefix("libswiftCore.so") }, "ldd read it: \(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libnl-") }, "\(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libsystemd") }, "\(libraries)")
    }

    @Test("PathClient programs link libnl-3 (the in-process engine) but neither libnl-route-3 nor libsystemd",
          arguments: ["NWPathMonitorCallback", "NWPathMonitorAsync", "OfflineBanner", "PathMonitorPrinter"])
    func pathClient(program: String) throws {
        let libraries = try Self.libraries(of: program)
        #expect(libraries.contains { $0.hasPrefix("libnl-3.so") }, "\(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libnl-route-3.so") }, "\(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libsystemd") }, "\(libraries)")
    }

    @Test("pathd links libsystemd: the check above can see it")
    func daemonLinksSystemd() throws {
        #expect(try Self.libraries(of: "pathd").contains { $0.hasPrefix("libsystemd.so") })
    }
}
