// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathConfiguration
import PathProtocol
import PathTestFixtures
import Testing

/// The packaging sources: one version, the example configuration, `make install`.
@Suite("Packaging files", .blocking)
struct PackagingFilesTests {
    @Test("the Debian version is the binaries' version (DaemonVersion.current)")
    func oneVersion() throws {
        // "pathd (0.1.0) unstable; urgency=medium": a native package, no Debian revision.
        let first = try Repository.read("packaging/debian/changelog").prefix { $0 != "\n" }
        #expect(first.hasPrefix("pathd (\(DaemonVersion.current)) "), "packaging/debian/changelog: \(first)")
    }

    @Test("LICENSE is the Apache License 2.0, and debian/copyright says so in the machine-readable format")
    func license() throws {
        let license = try Repository.read("LICENSE")
        #expect(license.contains("Apache License\n                           Version 2.0, January 2004"))
        #expect(license.contains("END OF TERMS AND CONDITIONS") && license.contains("APPENDIX: How to apply"))
        let copyright = try Repository.read("packaging/debian/copyright")
        // DEP-5: the header paragraph, a Files paragraph for everything, the license's own paragraph.
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        let paragraphs = copyright.components(separatedBy: "\n\n")
        #expect(paragraphs.contains { $0.hasPrefix("Files: *\n") && $0.contains("\nLicense: Apache-2.0") },
                "\(copyright)")
        #expect(copyright.contains("\nLicense: Apache-2.0\n Licensed under the Apache License, Version 2.0"))
        #expect(copyright.contains("\"/usr/share/common-licenses/Apache-2.0\""))
        #expect(try Repository.read("Package.swift").contains("// SPDX-License-Identifier: Apache-2.0\n"))
    }

    @Test("pathd(8) gives every option pathd accepts a SYNOPSIS mention and an entry, and names no other")
    func daemonManualListsEveryOption() throws {
        let help = try Command.check(BuiltProduct.url("pathd"), ["--help"])
        // --print-example-config and --completions are for packagers: accepted, left out of
        // --help, in the manual.
        let forPackagers = ["--print-example-config", "--completions"]
        let accepted = Set(UsageText(help).longOptions + forPackagers)
        #expect(accepted.count > 10, "options read from pathd --help: \(accepted)")
        let manual = try Repository.read("man/pathd.8")
        // The option list: from "The options are as follows:" to the list's end.
        let list = manual.components(separatedBy: "The options are as follows:\n").dropFirst().first?
            .components(separatedBy: "\n.El\n").first ?? ""
        // ".It Fl \-socket Ar path", ".It Fl h , Fl \-help"
        let entries = Set(list.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\.It Fl (?:[A-Za-z] , Fl )?\\-([a-z0-9-]+)/).map { "--" + $0.1 }
        })
        #expect(entries == accepted, "pathd(8)'s option list \(entries.sorted()), pathd's \(accepted.sorted())")
        let synopsis = (manual.components(separatedBy: "\n.Sh ").first { $0.hasPrefix("SYNOPSIS\n") } ?? "") + "\n"
        for option in accepted where !forPackagers.contains(option) {
            // ".Op Fl \-socket Ar path", ".Fl h | \-help"
            let name = "\\-\(option.dropFirst(2))"
            #expect(synopsis.contains(name + " ") || synopsis.contains(name + "\n"),
                    "\(option) is not in pathd(8)'s SYNOPSIS")
        }
    }

    /// A `[Daemon]` key's values, range and default are written in pathd.conf(5) only (and
    /// held to the key table by documentsMatchTheKeyTables): pathd(8) names each key's flag
    /// with the table's kind of value and leaves the rest to that page.
    @Test("pathd(8) lists every [Daemon] key's flag with its kind, and gives no key's default")
    func daemonManualDefersToTheConfigurationManual() throws {
        let manual = try Repository.read("man/pathd.8")
        let list = manual.components(separatedBy: "The options are as follows:\n").dropFirst().first?
            .components(separatedBy: "\n.El\n").first ?? ""
        // ".It Fl \-max-clients-per-user Ar count": "maxclientsperuser" is "count". The keys'
        // entries share one body, which follows the last of them.
        let keyNames = Set(DaemonSettings.keys.map { $0.name.lowercased() })
        var kinds: [String: String] = [:]
        var bodies = ""
        for item in list.components(separatedBy: "\n.It ") {
            let lines = item.split(separator: "\n", maxSplits: 1)
            guard let head = lines.first, let match = head.firstMatch(of: /^Fl \\-([a-z0-9-]+) Ar ([a-z]+)$/),
                  case let name = String(match.1.replacing("-", with: "")), keyNames.contains(name) else { continue }
            kinds[name] = String(match.2)
            bodies += lines.dropFirst().first ?? ""
        }
        #expect(!bodies.isEmpty, "no body follows pathd(8)'s [Daemon] flags")
        for key in DaemonSettings.keys {
            #expect(kinds[key.name.lowercased()] == key.kind.rawValue,
                    "pathd(8) lacks \".It Fl \\-… Ar \(key.kind.rawValue)\" for \(key.name)=")
            guard !key.documentedDefault.isEmpty else { continue }
            #expect(!bodies.contains(key.documentedDefault),
                    "pathd(8) gives \(key.name)='s default \(key.documentedDefault) again: \(bodies)")
            // Nor anywhere else in the page: the line after each mention of the key.
            for mention in manual.components(separatedBy: ".Cm \(key.name)=\n").dropFirst() {
                let next = mention.prefix { $0 != "\n" }
                #expect(!next.contains(key.documentedDefault),
                        "pathd(8) gives \(key.name)='s default after naming it: \(next)")
            }
        }
    }

    @Test("the path line PROTOCOL.md, pathd(8) and pathctl(1) show is a whole line, byte for byte as pathd writes it")
    func documentedPathLines() throws {
        // docs/PROTOCOL.md: the code block under "### `path`".
        let protocolText = try Repository.read("docs/PROTOCOL.md")
        let section = try #require(protocolText.components(separatedBy: "\n### `path`\n").dropFirst().first)
        let fromProtocol = try #require(section.components(separatedBy: "```\n").dropFirst().first)
        var examples = [("docs/PROTOCOL.md", fromProtocol.trimmingCharacters(in: .newlines))]
        // The manuals: the literal block after "A path line looks like this", folded at "\n ".
        for manual in ["man/pathd.8", "man/pathctl.1"] {
            let text = try Repository.read(manual)
            let after = try #require(text.components(separatedBy: "A path line looks like this").dropFirst().first,
                                     "\(manual) shows no path line")
            let block = try #require(after.components(separatedBy: ".Bd -literal -offset indent\n").dropFirst().first)
            let folded = try #require(block.components(separatedBy: "\n.Ed").first)
            examples.append((manual, folded.replacingOccurrences(of: "\n ", with: "")))
        }
        for (document, line) in examples {
            let message = try ServerMessage.decode(line: Array(line.utf8))
            guard case .path = message else {
                Issue.record("\(document): not a path line: \(line)")
                continue
            }
            #expect(String(decoding: message.encoded(), as: UTF8.self) == line + "\n",
                    "\(document)'s path line is not what pathd writes for it")
        }
    }

    @Test("the example pathd.conf names every key of pathd.conf(5), and as shipped changes nothing")
    func exampleConfigurationIsTheDefaults() throws {
        let example = try Repository.read("packaging/pathd.conf")
        let manual = try Repository.read("man/pathd.conf.5")
        // ".It Cm MaxClients= Ns Ar count"
        let keys = manual.split(separator: "\n").compactMap { line -> Substring? in
            guard line.hasPrefix(".It Cm "), let equals = line.firstIndex(of: "=") else { return nil }
            return line[line.index(line.startIndex, offsetBy: 7)..<equals]
        }
        #expect(keys.count >= 13, "keys read from pathd.conf.5: \(keys)")
        for key in keys {
            #expect(example.contains("\n#\(key)="), "\(key)= is not in packaging/pathd.conf")
        }
        try withTemporaryDirectory { directory in
            let empty = directory.path("empty.conf")
            try "".write(toFile: empty, atomically: true, encoding: .utf8)
            let defaults = try Self.checkConfig(empty)
            let shipped = try Self.checkConfig(Repository.path("packaging/pathd.conf"))
            #expect(shipped == defaults)
        }
    }

    @Test("pathd.conf(5) and the example pathd.conf list every key of every section's table, with its kind and default")
    func documentsMatchTheKeyTables() throws {
        let manual = try Repository.read("man/pathd.conf.5")
        let example = try Repository.read("packaging/pathd.conf")
        func check<Section: ConfigurationSection>(_ section: Section.Type) {
            // The section's part of each file: from its heading to the next one.
            let heading = "[\(Section.sectionName)]"
            let manualPart = manual.components(separatedBy: ".Ss \(heading)").dropFirst().first?
                .components(separatedBy: "\n.Ss ").first?.components(separatedBy: "\n.Sh ").first ?? ""
            let examplePart = example.components(separatedBy: "\n\(heading)\n").dropFirst().first
                ?? example.components(separatedBy: "\n#\(heading)\n").dropFirst().first ?? ""
            #expect(!manualPart.isEmpty, "pathd.conf.5 has no .Ss \(heading)")
            #expect(!examplePart.isEmpty, "packaging/pathd.conf has no \(heading)")
            let documented = manualPart.split(separator: "\n").compactMap { line -> Substring? in
                guard line.hasPrefix(".It Cm "), let equals = line.firstIndex(of: "=") else { return nil }
                return line[line.index(line.startIndex, offsetBy: 7)..<equals]
            }
            #expect(Set(documented.map(String.init)) == Set(Section.keys.map(\.name)),
                    "\(heading): pathd.conf.5 lists \(documented), the table \(Section.keys.map(\.name))")
            for key in Section.keys {
                let item = ".It Cm \(key.name)= Ns Ar \(key.kind.rawValue)"
                #expect(manualPart.contains(item + "\n"), "pathd.conf.5 lacks \"\(item)\" under \(heading)")
                let description = manualPart.components(separatedBy: item).dropFirst().first?
                    .components(separatedBy: "\n.It ").first ?? ""
                if !key.documentedDefault.isEmpty {
                    #expect(description.contains(key.documentedDefault),
                            "pathd.conf.5 does not give \(key.name)='s default \(key.documentedDefault)")
                }
                // A number's bounds ("from 1 to 65536"), as the table's range says them.
                if let range = key.range, [.count, .size, .span].contains(key.kind) {
                    #expect(description.replacingOccurrences(of: "\n", with: " ").contains(range),
                            "pathd.conf.5 does not give \(key.name)='s range \(range)")
                }
                #expect(examplePart.contains("\n#\(key.name)=\(key.documentedDefault)\n"),
                        "packaging/pathd.conf lacks #\(key.name)=\(key.documentedDefault) under \(heading)")
            }
        }
        check(DaemonSettings.self)
        check(InterfaceSettings.self)
        check(NetworkSettings.self)
        check(ConnectivitySettings.self)
        check(WatchSettings.self)
    }

    @Test("the checked-in packaging/pathd.conf is what `pathd --print-example-config` writes from the key tables")
    func exampleConfigurationIsGenerated() throws {
        let generated = try Command.check(BuiltProduct.url("pathd"), ["--print-example-config"])
        #expect(generated == (try Repository.read("packaging/pathd.conf")),
                "packaging/pathd.conf is stale: run `make generate`")
    }

    @Test("the pathd completions offer the log levels LogLevel= takes")
    func completionsOfferTheLogLevels() throws {
        let levels = LogLevel.allCases.map(\.rawValue).joined(separator: " ")
        for file in ["pathd.bash", "_pathd", "pathd.fish"] {
            #expect(try Repository.read("packaging/completions/\(file)").contains(levels),
                    "\(file) does not offer \(levels)")
        }
    }

    @Test("uncommented, every [Daemon] line of the example is the default it claims")
    func exampleDefaultsAreTrue() throws {
        let example = try Repository.read("packaging/pathd.conf")
        try withTemporaryDirectory { directory in
            // "#Key=value" and "#[Interface]" lines become live; prose comments stay.
            let uncommented = example.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix("#[") || line.range(of: #"^#[A-Z][A-Za-z0-9]*="#, options: .regularExpression) != nil
                    ? line.dropFirst() : line
            }.joined(separator: "\n")
            let live = directory.path("uncommented.conf")
            try uncommented.write(toFile: live, atomically: true, encoding: .utf8)
            let empty = directory.path("empty.conf")
            try "".write(toFile: empty, atomically: true, encoding: .utf8)
            let defaults = try Self.checkConfig(empty)
            let effective = try Self.checkConfig(live)
            #expect(Self.daemonSection(effective) == Self.daemonSection(defaults))
            #expect(!Self.daemonSection(defaults).isEmpty)
            // The [Interface] section with every key empty sets nothing.
            #expect(!effective.contains("Expensive=") && !effective.contains("Ignore="), "\(effective)")
        }
    }

    @Test("make install follows PREFIX and DESTDIR, and never replaces /etc/pathd/pathd.conf")
    func installFollowsThePrefix() throws {
        let built = try BuiltProduct.url("pathd").deletingLastPathComponent().path
        try withTemporaryDirectory { directory in
            let stage = directory.path("stage")
            let install = try Self.make(["install", "DESTDIR=\(stage)", "PREFIX=/opt/pathd", "RELEASE_DIR=\(built)"])
            #expect(install.termination == .exit(0), "stderr: \(install.stderr)")
            func text(_ relative: String) throws -> String {
                try String(contentsOfFile: "\(stage)/\(relative)", encoding: .utf8)
            }
            #expect(FileManager.default.isExecutableFile(atPath: "\(stage)/opt/pathd/bin/pathd"))
            #expect(FileManager.default.isExecutableFile(atPath: "\(stage)/opt/pathd/bin/pathctl"))
            #expect(FileManager.default.isExecutableFile(atPath: "\(stage)/opt/pathd/bin/pathd-probe"))
            #expect(try text("opt/pathd/lib/systemd/system/pathd-probe.service")
                .contains("\nExecStart=/opt/pathd/bin/pathd-probe --socket /run/pathd/pathd.sock\n"))
            #expect(try text("opt/pathd/share/man/man8/pathd-probe.8")
                .contains("/opt/pathd/lib/systemd/system/pathd-probe.service"))
            let service = try text("opt/pathd/lib/systemd/system/pathd.service")
            #expect(service.contains("\nExecStart=/opt/pathd/bin/pathd\n"))
            #expect(service.contains("\nExecReload=/opt/pathd/bin/pathctl --socket /run/pathd/pathd.sock reload\n"))
            #expect(try text("opt/pathd/lib/systemd/system/pathd-wait-online.service")
                .contains("\nExecStart=/opt/pathd/bin/pathctl "))
            #expect(try text("opt/pathd/lib/systemd/system/pathd-wait-route@.service").contains(
                "\nExecStart=/opt/pathd/bin/pathctl --socket /run/pathd/pathd.sock wait --timeout 60 --route %I\n"))
            #expect(try text("opt/pathd/lib/systemd/system/pathd-path@.service").contains(
                "\nExecStart=/opt/pathd/bin/pathctl --socket /run/pathd/pathd.sock hold %i\n"))
            let manual = try text("opt/pathd/share/man/man8/pathd.8")
            #expect(manual.contains("/opt/pathd/lib/systemd/system/pathd.service"))
            #expect(manual.contains("/opt/pathd/share/doc/pathd/PROTOCOL.md"))
            #expect(!manual.contains("/usr/local"))
            #expect(try text("opt/pathd/share/man/man1/pathctl.1").contains("/opt/pathd/share/doc/pathd/PROTOCOL.md"))
            #expect(FileManager.default.fileExists(atPath: "\(stage)/opt/pathd/share/doc/pathd/PROTOCOL.md"))
            #expect(manual.contains("/opt/pathd/share/pathd/prometheus/pathd.rules.yml"))
            for rules in ["pathd.rules.yml", "pathd.rules.test.yml"] {
                #expect(try text("opt/pathd/share/pathd/prometheus/\(rules)")
                        == (try Repository.read("packaging/prometheus/\(rules)")))
            }
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: "\(stage)/etc/pathd/pathd.conf.d", isDirectory: &isDirectory)
                    && isDirectory.boolValue, "no drop-in directory")
            #expect(FileManager.default.fileExists(
                atPath: "\(stage)/opt/pathd/share/bash-completion/completions/pathctl"))
            #expect(try text("etc/pathd/pathd.conf") == (try Repository.read("packaging/pathd.conf")))

            try "[Daemon]\nMaxClients=7\n".write(toFile: "\(stage)/etc/pathd/pathd.conf", atomically: true,
                                                 encoding: .utf8)
            let again = try Self.make(["install", "DESTDIR=\(stage)", "PREFIX=/opt/pathd", "RELEASE_DIR=\(built)"])
            #expect(again.termination == .exit(0), "stderr: \(again.stderr)")
            #expect(try text("etc/pathd/pathd.conf") == "[Daemon]\nMaxClients=7\n")
        }
    }

    @Test("make install without a build says to run make build and installs nothing")
    func installNeedsABuild() throws {
        try withTemporaryDirectory { directory in
            let empty = directory.path("no-build")
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
            let stage = directory.path("stage")
            let result = try Self.make(["install", "DESTDIR=\(stage)", "RELEASE_DIR=\(empty)"])
            #expect(result.termination != .exit(0))
            #expect(result.stderr.contains("install: \(empty)/pathd is missing: run 'make build' first"),
                    "stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stage))
        }
    }

    @Test("make install-gio-module copies the built module into DESTDIR and GIOMODULEDIR, and writes no cache there",
          .enabled(if: GIOModuleBuild.isBuilt, "\(GIOModuleBuild.notBuiltMessage)"))
    func installGIOModule() throws {
        try withTemporaryDirectory { directory in
            let stage = directory.path("stage")
            let result = try Self.make(["install-gio-module", "DESTDIR=\(stage)", "GIOMODULEDIR=/opt/gio/modules"])
            #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
            let installed = try FileManager.default.contentsOfDirectory(atPath: "\(stage)/opt/gio/modules")
            // libglib2.0-0's trigger (or the administrator) writes giomodule.cache on the real system.
            #expect(installed == ["libgiopathd.so"], "\(installed)")
            #expect(FileManager.default.contentsEqual(atPath: "\(stage)/opt/gio/modules/libgiopathd.so",
                                                      andPath: GIOModuleBuild.moduleDirectory + "/libgiopathd.so"))
            let removed = try Self.make(["uninstall-gio-module", "DESTDIR=\(stage)", "GIOMODULEDIR=/opt/gio/modules"])
            #expect(removed.termination == .exit(0), "stderr: \(removed.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(stage)/opt/gio/modules").isEmpty)
        }
    }

    /// `pathd --check-config --config PATH`: its standard output without the line naming
    /// the files read; throws, with stderr, unless it exits 0 without a warning.
    private static func checkConfig(_ path: String) throws -> String {
        let result = try Command.run(BuiltProduct.url("pathd"), ["--check-config", "--config", path])
        guard result.termination == .exit(0), result.stderr.isEmpty else {
            throw HarnessError("pathd --check-config --config \(path): \(result.termination): \(result.stderr)")
        }
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("# Files:") }.joined(separator: "\n")
    }

    /// The `[Daemon]` section of a rendered configuration, up to the next blank line.
    private static func daemonSection(_ rendered: String) -> [Substring] {
        Array(rendered.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0 != "[Daemon]" }.prefix { !$0.isEmpty })
    }

    private static func make(_ arguments: [String]) throws -> CommandResult {
        try Command.run(Command.find("make"), ["--no-print-directory", "-C", Repository.root.path] + arguments)
    }
}
