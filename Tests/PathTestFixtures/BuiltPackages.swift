// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathProtocol

// The Debian packages `make deb` built (`make test` passes their paths), which the package,
// maintainer-script, GIO-module and systemd tests install or unpack.

/// Which package the tests install, decided once.
public struct PackageUnderTest: Sendable {
    public let path: String
    public let isAvailable: Bool
    public let reason: String

    public static let probe = PackageUnderTest.find()

    public static func architecture() throws -> String {
        try Command.check(Command.find("dpkg"),
                          ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// PATHD_TEST_DEB when set (a missing file then fails the tests); else the package in
    /// build/ if `make deb` made one; skipped where dpkg-deb is missing or nothing was built.
    private static func find() -> PackageUnderTest {
        do {
            _ = try Command.find("dpkg-deb")
        } catch {
            return PackageUnderTest(path: "", isAvailable: false, reason: "dpkg-deb is missing: \(error)")
        }
        if let given = ProcessInfo.processInfo.environment["PATHD_TEST_DEB"] {
            return PackageUnderTest(path: given, isAvailable: true, reason: "")
        }
        let built: String
        do {
            // Probed while Swift Testing evaluates `.enabled(if:)`, on its pool.
            let machine = try BlockingTest.allowingBriefBlock { try architecture() }
            built = Repository.path("build/pathd_\(DaemonVersion.current)_\(machine).deb")
        } catch {
            return PackageUnderTest(path: "", isAvailable: false, reason: "no architecture from dpkg: \(error)")
        }
        guard FileManager.default.fileExists(atPath: built) else {
            return PackageUnderTest(path: built, isAvailable: false,
                                    reason: "\(built) not built: run `make deb` (`make test` does it first)")
        }
        return PackageUnderTest(path: built, isAvailable: true, reason: "")
    }
}

/// Which pathd-gio-module package the tests unpack, decided once: PATHD_TEST_GIO_DEB when
/// set (a missing file then fails the tests), else the one `make deb` left in build/.
public struct GIOModulePackage: Sendable {
    public let path: String
    public let isAvailable: Bool
    public let reason: String

    public static let probe = GIOModulePackage.find()

    private static func find() -> GIOModulePackage {
        guard PackageUnderTest.probe.isAvailable else {
            return GIOModulePackage(path: "", isAvailable: false, reason: PackageUnderTest.probe.reason)
        }
        if let given = ProcessInfo.processInfo.environment["PATHD_TEST_GIO_DEB"] {
            return GIOModulePackage(path: given, isAvailable: true, reason: "")
        }
        let architecture: String
        do {
            architecture = try BlockingTest.allowingBriefBlock { try PackageUnderTest.architecture() }
        } catch {
            return GIOModulePackage(path: "", isAvailable: false, reason: "no architecture from dpkg: \(error)")
        }
        let built = URL(fileURLWithPath: PackageUnderTest.probe.path).deletingLastPathComponent()
            .appendingPathComponent("pathd-gio-module_\(DaemonVersion.current)_\(architecture).deb").path
        guard FileManager.default.fileExists(atPath: built) else {
            return GIOModulePackage(path: built, isAvailable: false, reason: "\(built) not built: run `make deb`")
        }
        return GIOModulePackage(path: built, isAvailable: true, reason: "")
    }

    /// The module of package `deb` extracted into a scratch root.
    public static func unpackModule(of deb: String, _ body: (URL) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            try Command.check(Command.find("dpkg-deb"), ["--extract", deb, directory.path("root")])
            try body(URL(fileURLWithPath: directory.path("root") + (try moduleDirectory()))
                .appendingPathComponent("libgiopathd.so"))
        }
    }

    /// /usr/lib/<multiarch triplet>/gio/modules, as debian/rules installs it.
    public static func moduleDirectory() throws -> String {
        let triplet = try Command.check(Command.find("dpkg-architecture"), ["--query", "DEB_HOST_MULTIARCH"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return "/usr/lib/\(triplet)/gio/modules"
    }
}
