// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathProtocol
import PathTestFixtures
import Testing

/// pathd-gio-module, the second binary package `make deb` builds (`make test` passes its
/// path in PATHD_TEST_GIO_DEB), unpacked with `dpkg -x` into a scratch root.
@Suite(
    "Debian package of the GIO module",
    .serialized,
    .enabled(if: GIOModulePackage.probe.isAvailable, "\(GIOModulePackage.probe.reason)"), .blocking
)
struct GIOModulePackageTests {
    let deb = GIOModulePackage.probe.path

    @Test("Multi-Arch: same, Depends on pathd and GLib from shlibdeps, nothing of Swift, libnl or systemd")
    func control() throws {
        let dpkgDeb = try Command.find("dpkg-deb")
        func field(_ name: String, _ package: String) throws -> String {
            try Command.check(dpkgDeb, ["--field", package, name]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try field("Package", deb) == "pathd-gio-module")
        #expect(try field("Version", deb) == DaemonVersion.current)
        #expect(try field("Architecture", deb) == (try PackageUnderTest.architecture()))
        #expect(try field("Multi-Arch", deb) == "same")
        let depends = try field("Depends", deb)
        let names = Self.packageNames(depends)
        #expect(depends.contains("pathd (>= \(DaemonVersion.current))"), "Depends: \(depends)")
        for library in ["libglib2.0-0", "libjson-glib-1.0-0", "libc6"] {
            #expect(names.contains(library), "Depends: \(depends)")
        }
        for absent in ["swift", "libnl", "libsystemd", "libcurl", "libstdc++", "libdispatch", "libfoundation"] {
            #expect(!depends.lowercased().contains(absent), "Depends: \(depends)")
        }
        // The other way round: a server installing pathd gets no GLib.
        let pathd = PackageUnderTest.probe.path
        let pathdDepends = try field("Depends", pathd)
        #expect(!pathdDepends.contains("glib"), "pathd's Depends: \(pathdDepends)")
        #expect(try field("Multi-Arch", pathd) == "foreign", "pathd serves every architecture's clients")
    }

    @Test("it holds the module in GLib's multiarch module directory, no giomodule.cache and no maintainer script")
    func contents() throws {
        let listing = try Command.check(Command.find("dpkg-deb"), ["--contents", deb])
        let files = listing.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("-") else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).last.map { String($0.dropFirst()) }
        }
        let modules = try GIOModulePackage.moduleDirectory()
        #expect(files.sorted() == ["\(modules)/libgiopathd.so", "/usr/share/doc/pathd-gio-module/changelog.gz",
                                   "/usr/share/doc/pathd-gio-module/copyright"], "\(listing)")
        try withTemporaryDirectory { directory in
            try Command.check(Command.find("dpkg-deb"), ["--control", deb, directory.path("control")])
            let control = try FileManager.default.contentsOfDirectory(atPath: directory.path("control")).sorted()
            // libglib2.0-0's file trigger on the module directory runs gio-querymodules.
            #expect(control == ["control", "md5sums"], "control members: \(control)")
        }
    }

    @Test("the module is stripped, without RUNPATH, bound now, exporting only g_io_pathd_*; its symbols in -dbgsym")
    func elf() throws {
        let readelf = try Command.find("readelf")
        try withUnpackedModule { module in
            let dynamic = try Command.check(readelf, ["--dynamic", module.path])
            #expect(!dynamic.contains("RUNPATH") && !dynamic.contains("RPATH"), "\(dynamic)")
            #expect(dynamic.contains("BIND_NOW") || dynamic.contains("FLAGS_1") && dynamic.contains("NOW"),
                    "\(dynamic)")
            let needed = dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            #expect(needed.contains { $0.contains("libgio-2.0.so.0") }
                    && needed.contains { $0.contains("libjson-glib-1.0.so.0") },
                    "\(needed)")
            #expect(!needed.contains { $0.contains("swift") || $0.contains("libnl") || $0.contains("libstdc++") },
                    "\(needed)")
            let sections = try Command.check(readelf, ["--section-headers", "--wide", module.path])
            #expect(!sections.contains(".debug_info") && !sections.contains(".symtab"), "the module is not stripped")
            let exported = Self.exportedFunctions(try Command.check(readelf, ["--dyn-syms", "--wide", module.path]))
            #expect(exported.sorted() == ["g_io_pathd_load", "g_io_pathd_query", "g_io_pathd_unload"], "\(exported)")
            let notes = try Command.check(readelf, ["--notes", module.path])
            let buildID = try #require(notes.split(separator: "\n").first { $0.contains("Build ID:") }?
                .split(separator: " ").last.map(String.init), "the module has no build id")
            let dbgsym = URL(fileURLWithPath: deb).deletingLastPathComponent().appendingPathComponent(
                "pathd-gio-module-dbgsym_\(DaemonVersion.current)_\(try PackageUnderTest.architecture()).deb")
            let debugFiles = try Command.check(Command.find("dpkg-deb"), ["--contents", dbgsym.path])
            #expect(debugFiles.contains("usr/lib/debug/.build-id/\(buildID.prefix(2))/\(buildID.dropFirst(2)).debug"))
        }
    }

    @Test("gio-querymodules, as GLib's trigger runs it, records the module for gio-network-monitor")
    func querymodules() throws {
        let querymodules = try Command.check(Command.find("pkg-config"), ["--variable=gio_querymodules", "gio-2.0"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try withUnpackedModule { module in
            let directory = module.deletingLastPathComponent()
            let result = try Command.run(URL(fileURLWithPath: querymodules), [directory.path])
            #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
            let cache = try String(contentsOfFile: directory.appendingPathComponent("giomodule.cache").path,
                                   encoding: .utf8)
            #expect(cache == "libgiopathd.so: gio-network-monitor\n", "giomodule.cache: \(cache)")
        }
    }

    private func withUnpackedModule(_ body: (URL) throws -> Void) throws {
        try GIOModulePackage.unpackModule(of: deb, body)
    }

    /// The defined global functions of `readelf --dyn-syms --wide`'s table, whose rows read
    /// "Num: Value Size Type Bind Vis Ndx Name" ("1: 0000 42 FUNC GLOBAL DEFAULT 12 g_io_pathd_load").
    static func exportedFunctions(_ table: String) -> [String] {
        var names: [String] = []
        for line in table.split(separator: "\n") {
            let fields: [Substring] = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[3] == "FUNC", fields[4] == "GLOBAL", fields[6] != "UND" else { continue }
            names.append(String(fields[7]))
        }
        return names
    }

    /// "pathd (>= 0.1.0), libc6 (>= 2.34)" → ["pathd", "libc6"].
    static func packageNames(_ depends: String) -> [String] {
        depends.split(separator: ",").compactMap {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").first.map(String.init)
        }
    }
}
