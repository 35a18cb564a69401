// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathProtocol
import PathTestFixtures
import Testing

/// The Debian package `make deb` built (`make test` builds it first and passes its path in
/// PATHD_TEST_DEB), installed with `dpkg -x` into a scratch root and run from there.
@Suite(
    "Debian package",
    .serialized,
    .enabled(if: PackageUnderTest.probe.isAvailable, "\(PackageUnderTest.probe.reason)"), .blocking
)
struct PackageTests {
    let deb = PackageUnderTest.probe.path

    @Test("the control fields: the binaries' version, Depends from shlibdeps, no libnl-route, nothing of the toolchain")
    func control() throws {
        let dpkgDeb = try Command.find("dpkg-deb")
        #expect(try Command.check(dpkgDeb, ["--field", deb, "Version"]) == "\(DaemonVersion.current)\n")
        let depends = try Command.check(dpkgDeb, ["--field", deb, "Depends"])
        let names = depends.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")[0]
        }
        for library in ["libnl-3-200", "libsystemd0"] {
            #expect(names.contains(Substring(library)), "Depends: \(depends)")
        }
        // No program calls libnl-route-3 (docs/ARCHITECTURE.md, "Why not libnl-route's objects"):
        // linked anyway, dpkg-shlibdeps would name it here and warn.
        #expect(!names.contains("libnl-route-3-200"), "Depends: \(depends)")
        #expect(names.contains { $0.hasPrefix("libcurl4") }, "pathd-probe's libcurl, from shlibdeps: \(depends)")
        #expect(!depends.lowercased().contains("swift"), "Depends: \(depends)")
        #expect(!depends.contains("libdispatch") && !depends.contains("libFoundation"), "Depends: \(depends)")
    }

    @Test("pathd --version and pathctl --help run from the package with the toolchain hidden",
          .enabled(if: getuid() == 0, "unshare --mount needs root"))
    func runsWithoutToolchain() throws {
        try withInstalledPackage { root in
            let toolchain = try Self.toolchainDirectory()
            let script = """
                mount -t tmpfs -o size=1m pathd-test-hides-the-toolchain "$1"
                if [ -e "$1/usr/bin/swift" ]; then echo "the toolchain is still visible" >&2; exit 97; fi
                "$2/usr/bin/pathd" --version
                "$2/usr/bin/pathctl" --help
                "$2/usr/bin/pathd-probe" --version
                ldd "$2/usr/bin/pathd" "$2/usr/bin/pathctl"
                echo "== pathd-probe"
                ldd "$2/usr/bin/pathd-probe"
                """
            let result = try Command.run(Command.find("unshare"),
                                         ["--mount", "--propagation", "private", "sh", "-e", "-c", script, "sh",
                                          toolchain.path, root.path])
            #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "pathd \(DaemonVersion.current) (protocol \(ProtocolVersion.current))",
                    "stdout: \(result.stdout)")
            #expect(lines.contains("Usage: pathctl [--socket PATH] COMMAND [OPTIONS]"), "stdout: \(result.stdout)")
            #expect(lines.contains("pathd-probe \(DaemonVersion.current) (protocol \(ProtocolVersion.current))"),
                    "stdout: \(result.stdout)")
            let libraries = lines.filter { $0.contains("=>") }
            #expect(libraries.contains { $0.contains("libnl-3.so.200") }, "ldd: \(libraries)")
            // libcurl only in pathd-probe: pathd and pathctl open no IP socket through it.
            let (daemons, probe) = (lines.prefix { $0 != "== pathd-probe" }, lines.drop { $0 != "== pathd-probe" })
            #expect(!daemons.contains { $0.contains("libcurl") }, "ldd: \(daemons)")
            #expect(probe.contains { $0.contains("libcurl.so.4") }, "ldd: \(probe)")
            for line in libraries {
                #expect(!line.contains("not found") && !line.contains(toolchain.path), "ldd: \(line)")
            }
        }
    }

    @Test("the binaries carry no RUNPATH, are stripped, and their debug symbols are in pathd-dbgsym")
    func strippedWithDebugSymbols() throws {
        let readelf = try Command.find("readelf")
        let dbgsym = URL(fileURLWithPath: deb).deletingLastPathComponent()
            .appendingPathComponent("pathd-dbgsym_\(DaemonVersion.current)_\(try PackageUnderTest.architecture()).deb")
        let debugFiles = try Command.check(Command.find("dpkg-deb"), ["--contents", dbgsym.path])
        try withInstalledPackage { root in
            for binary in ["pathd", "pathctl", "pathd-probe"] {
                let path = root.appendingPathComponent("usr/bin/\(binary)").path
                let dynamic = try Command.check(readelf, ["--dynamic", path])
                #expect(!dynamic.contains("RUNPATH") && !dynamic.contains("RPATH"), "\(binary): \(dynamic)")
                let sections = try Command.check(readelf, ["--section-headers", "--wide", path])
                #expect(!sections.contains(".debug_info") && !sections.contains(".symtab"), "\(binary) is not stripped")
                let notes = try Command.check(readelf, ["--notes", path])
                let buildID = try #require(notes.split(separator: "\n").first { $0.contains("Build ID:") }?
                    .split(separator: " ").last.map(String.init), "\(binary) has no build id")
                let debugFile = "usr/lib/debug/.build-id/\(buildID.prefix(2))/\(buildID.dropFirst(2)).debug"
                #expect(debugFiles.contains(debugFile), "\(debugFile) not in pathd-dbgsym")
            }
        }
    }

    @Test("units, man pages, completions, config and PROTOCOL.md are installed with Debian's paths")
    func layout() throws {
        try withInstalledPackage { root in
            func text(_ relative: String) throws -> String {
                try String(contentsOfFile: root.appendingPathComponent(relative).path, encoding: .utf8)
            }
            let service = try text("lib/systemd/system/pathd.service")
            #expect(service.contains("\nExecStart=/usr/bin/pathd\n"))
            #expect(service.contains("\nExecReload=/usr/bin/pathctl --socket /run/pathd/pathd.sock reload\n"))
            let waitOnline = try text("lib/systemd/system/pathd-wait-online.service")
            #expect(waitOnline.contains("\nExecStart=/usr/bin/pathctl --socket /run/pathd/pathd.sock wait --timeout " +
                                        "60\n"))
            #expect(try text("lib/systemd/system/pathd-wait-route@.service")
                .contains("\nExecStart=/usr/bin/pathctl --socket /run/pathd/pathd.sock wait --timeout 60 --route %I\n"))
            #expect(try text("lib/systemd/system/pathd-path@.service")
                .contains("\nExecStart=/usr/bin/pathctl --socket /run/pathd/pathd.sock hold %i\n"))
            #expect(FileManager.default.fileExists(
                atPath: root.appendingPathComponent("lib/systemd/system/pathd.socket").path))
            let pathd8 = try Command.check(Command.find("zcat"),
                                           [root.appendingPathComponent("usr/share/man/man8/pathd.8.gz").path])
            #expect(pathd8.contains("/lib/systemd/system/pathd.service"))
            #expect(pathd8.contains("/usr/share/doc/pathd/PROTOCOL.md"))
            #expect(!pathd8.contains("/usr/local") && !service.contains("/usr/local")
                    && !waitOnline.contains("/usr/local"))
            #expect(try text("lib/systemd/system/pathd-probe.service")
                .contains("\nExecStart=/usr/bin/pathd-probe --socket /run/pathd/pathd.sock\n"))
            #expect(FileManager.default.fileExists(
                atPath: root.appendingPathComponent("usr/share/man/man8/pathd-probe.8.gz").path))
            #expect(try text("usr/share/doc/pathd/PROTOCOL.md") == (try Repository.read("docs/PROTOCOL.md")))
            #expect(try text("usr/share/doc/pathd/FLEET.md") == (try Repository.read("docs/FLEET.md")))
            #expect(pathd8.contains("/usr/share/pathd/prometheus/pathd.rules.yml"))
            #expect(service.contains("\nStateDirectory=pathd\n")
                    && service.contains("\nRuntimeDirectory=pathd-metrics\n"))
            #expect(pathd8.contains("/usr/share/doc/pathd/FLEET.md"))
            #expect(try text("etc/pathd/pathd.conf") == (try Repository.read("packaging/pathd.conf")))
            // Each program's completions, for each shell, as checked in (CompletionTests: as written).
            for program in ["pathctl", "pathd", "pathd-probe"] {
                for (installed, checkedIn) in [("usr/share/bash-completion/completions/\(program)", "\(program).bash"),
                                               ("usr/share/zsh/vendor-completions/_\(program)", "_\(program)"),
                                               ("usr/share/fish/vendor_completions.d/\(program).fish",
                                                "\(program).fish")] {
                    #expect(try text(installed) == (try Repository.read("packaging/completions/\(checkedIn)")),
                            "\(installed)")
                }
            }
        }
    }

    @Test("""
        the alert rules FLEET.md loads are in the package, outside /usr/share/doc (Debian policy 12.3), with their \
        tests
        """)
    func alertRules() throws {
        try withInstalledPackage { root in
            let fleet = try Repository.read("docs/FLEET.md")
            // "rule_files:\n  - /usr/share/pathd/prometheus/pathd.rules.yml   # or a copy you adapt"
            let entry = try #require(fleet.components(separatedBy: "rule_files:\n").dropFirst().first?
                .split(separator: "\n").first?.split(separator: " ").dropFirst().first.map(String.init),
                "docs/FLEET.md has no rule_files: entry")
            #expect(!entry.hasPrefix("/usr/share/doc/"), "Prometheus would need a file under /usr/share/doc: \(entry)")
            let rules = root.appendingPathComponent(String(entry.dropFirst())).path
            #expect(try String(contentsOfFile: rules, encoding: .utf8)
                    == (try Repository.read("packaging/prometheus/pathd.rules.yml")),
                    "\(entry), named by FLEET.md")
            let tests = URL(fileURLWithPath: rules).deletingLastPathComponent()
                .appendingPathComponent("pathd.rules.test.yml")
            #expect(try String(contentsOf: tests, encoding: .utf8)
                    == (try Repository.read("packaging/prometheus/pathd.rules.test.yml")))
            let documentation = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("usr/share/doc/pathd").path)
            #expect(!documentation.contains { $0.hasSuffix(".yml") }, "\(documentation)")
        }
    }

    @Test("the package ships /etc/pathd/pathd.conf.d/, where the manuals and FLEET.md write drop-ins")
    func dropInDirectory() throws {
        let contents = try Command.check(Command.find("dpkg-deb"), ["--contents", deb])
        // "drwxr-xr-x root/root         0 2026-01-01 00:00 ./etc/pathd/pathd.conf.d/"
        let line = contents.split(separator: "\n").first { $0.hasSuffix(" ./etc/pathd/pathd.conf.d/") }
        #expect(line?.hasPrefix("drwxr-xr-x root/root ") == true, "\(contents)")
        for document in ["docs/FLEET.md", "man/pathd-probe.8", "man/pathd.conf.5"] {
            #expect(try Repository.read(document).contains("/etc/pathd/pathd.conf.d/"), "\(document)")
        }
    }

    @Test("the maintainer scripts enable pathd.socket and pathd.service, not pathd-wait-online.service")
    func enabledUnits() throws {
        try withTemporaryDirectory { directory in
            try Command.check(Command.find("dpkg-deb"), ["--control", deb, directory.path("control")])
            let postinst = try String(contentsOfFile: directory.path("control/postinst"), encoding: .utf8)
            // dh_installsystemd's snippets: an enabled unit's says "new installations run
            // enable"; a --no-enable unit's only re-enables what the administrator enabled.
            let snippets = postinst.components(separatedBy: "# Automatically added by dh_installsystemd")
            func enabledOnInstall(_ unit: String) -> Bool {
                snippets.contains {
                    $0.contains("new installations run enable") && $0.contains("was-enabled '\(unit)'")
                }
            }
            #expect(enabledOnInstall("pathd.socket"), "postinst:\n\(postinst)")
            #expect(enabledOnInstall("pathd.service"), "postinst:\n\(postinst)")
            #expect(!enabledOnInstall("pathd-wait-online.service"), "postinst:\n\(postinst)")
            #expect(!enabledOnInstall("pathd-probe.service"), "postinst:\n\(postinst)")
            #expect(!postinst.contains("pathd-wait-route@"), "a template is neither enabled nor started:\n\(postinst)")
            #expect(!postinst.contains("pathd-path@"), "a template is neither enabled nor started:\n\(postinst)")
            #expect(postinst.contains("deb-systemd-invoke $_dh_action 'pathd.service' 'pathd.socket'"),
                    "postinst:\n\(postinst)")
            let conffiles = try String(contentsOfFile: directory.path("control/conffiles"), encoding: .utf8)
            #expect(conffiles.split(separator: "\n").contains("/etc/pathd/pathd.conf"))
        }
    }

    /// Unpacks the package into a fresh directory (as `dpkg -x`, no maintainer scripts).
    private func withInstalledPackage(_ body: (URL) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            try Command.check(Command.find("dpkg-deb"), ["--extract", deb, directory.path("root")])
            try body(directory.url.appendingPathComponent("root"))
        }
    }

    /// The toolchain's root, found from `swift` on PATH: /opt/swift for /opt/swift/usr/bin/swift.
    private static func toolchainDirectory() throws -> URL {
        let swift = try Command.find("swift").resolvingSymlinksInPath()
        return swift.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
