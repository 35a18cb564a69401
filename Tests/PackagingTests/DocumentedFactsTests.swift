// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathConfiguration
import PathModel
import PathProtocol
import PathTestFixtures
import Testing

/// Every list a document writes of something the code has a table of, and every number
/// it copies from the code, read from the document and held to the code: a key, an op,
/// a message type, a reason or a limit added, removed or changed in the code fails here
/// until the documents say the same. (The key tables' own entries, flags and the example
/// file are PackagingFilesTests'; pathctl's commands and options, PathctlWithoutDaemonTests'.)
@Suite("documented facts", .blocking)
struct DocumentedFactsTests {
    // MARK: pathd.conf(5) and pathd(8)

    @Test("pathd.conf(5) names the [Daemon] keys a reload applies, and pathd(8) the ones that need a restart")
    func reloadableKeys() throws {
        let reloadable = DaemonSettings.keys.filter(\.isReloadable).map(\.name)
        let restart = DaemonSettings.keys.filter { !$0.isReloadable }.map(\.name)
        let configuration = try Repository.read("man/pathd.conf.5")
        let onReload = try #require(Self.between(configuration, ".Ss [Daemon] section\n", "take effect on reload"))
        #expect(Self.keyNames(onReload) == reloadable, "pathd.conf(5), [Daemon]: \(onReload)")
        let daemon = try Repository.read("man/pathd.8")
        let reloading = try #require(Self.between(daemon, ".Ss Reloading the configuration\n", "need a restart;"))
        #expect(Self.keyNames(reloading) == restart, "pathd(8), Reloading the configuration: \(reloading)")
    }

    @Test("pathd.conf(5) writes the booleans and the log levels the parser takes, in its order")
    func valueWords() throws {
        let manual = try Repository.read("man/pathd.conf.5")
        let booleans = try #require(Self.between(manual, "Booleans are written\n", "\n.Pp\n"))
        #expect(Self.words(booleans) == SettingText.booleans.map(\.word), "pathd.conf(5): \(booleans)")
        let levels = try #require(Self.between(manual, ".It Cm LogLevel= Ns Ar level\nOne of\n", "Default:"))
        #expect(Self.words(levels) == LogLevel.allCases.map(\.rawValue), "pathd.conf(5), LogLevel=: \(levels)")
    }

    @Test("pathd(8) describes every request op, and lists the statuses, reasons and interface types of a path line")
    func daemonManualLists() throws {
        let manual = try Repository.read("man/pathd.8")
        // ".It Li {"op":"status"}", ".It Li {"op":"route","destination":ADDRESS}"
        let ops = Set(manual.matches(of: /\n\.It Li \{"op":"(\w+)"/).map { String($0.1) })
        #expect(ops == Set(RequestOp.Name.allCases.map(\.rawValue)), "pathd(8)'s requests: \(ops.sorted())")
        let statuses = try #require(Self.between(manual, ".Cm status\nis one of\n", "\n.Cm unsatisfiedReason\n"))
        #expect(Self.words(statuses) == PathStatus.allCases.map(\.rawValue), "pathd(8): \(statuses)")
        let reasons = try #require(Self.between(manual, ".Cm unsatisfiedReason\nis null or one of\n", "An interface"))
        #expect(Self.words(reasons) == UnsatisfiedReason.allCases.map(\.rawValue), "pathd(8): \(reasons)")
        let types = try #require(Self.between(manual, ".Cm type\nis one of\n", "\n.Cm generation\n"))
        #expect(Self.words(types) == InterfaceType.allCases.map(\.rawValue), "pathd(8): \(types)")
    }

    // MARK: docs/PROTOCOL.md

    @Test("PROTOCOL.md has a row for every op, a section for every message type, and every reason, state and code")
    func protocolTables() throws {
        let text = try Repository.read("docs/PROTOCOL.md")
        let requests = try #require(Self.section(text, "## Requests"))
        #expect(Self.firstColumn(requests) == RequestOp.Name.allCases.map(\.rawValue), "PROTOCOL.md, Requests")
        let messages = try #require(Self.section(text, "## Messages from the daemon"))
        // "### `pong`, `unsubscribed`, `reported`"
        let headed = messages.matches(of: /\n### ([^\n]+)/).flatMap { Self.backticked($0.1) }
        #expect(Set(headed) == Set(ServerMessage.Kind.allCases.map(\.rawValue)), "PROTOCOL.md's messages: \(headed)")
        let reasons = try #require(Self.section(text, "#### Unsatisfied reasons"))
        #expect(Self.firstColumn(reasons) == UnsatisfiedReason.allCases.map(\.rawValue), "PROTOCOL.md, reasons")
        let connectivity = try #require(Self.section(text, "#### Connectivity"))
        #expect(Self.firstColumn(connectivity).prefix(ConnectivityState.allCases.count)
                == ConnectivityState.allCases.map(\.rawValue)[...], "PROTOCOL.md, Connectivity")
        let errors = try #require(Self.section(text, "### `error`"))
        #expect(Set(Self.firstColumn(errors)) == Set(ErrorCode.allCases.map(\.rawValue)), "PROTOCOL.md, error")
        let types = try #require(Self.section(text, "#### Interface types"))
        #expect(Self.backticked(types) == InterfaceType.allCases.map(\.rawValue), "PROTOCOL.md, Interface types")
        let interfaces = try #require(Self.section(text, "### `interfaces`"))
        let unusable = try #require(interfaces.split(separator: "\n").first { $0.hasPrefix("| `unusableReason` |") })
        let codes = Self.backticked(unusable).filter { !["unusableReason", "unsatisfiedReason", "why"].contains($0) }
        #expect(codes == InterfaceReport.UnusableReason.allCases.map(\.rawValue), "PROTOCOL.md: \(unusable)")
    }

    @Test("the protocol's own limits are written as the code has them, wherever a document gives them")
    func protocolLimits() throws {
        // Phrases may be folded across lines.
        func read(_ document: String) throws -> String {
            try Repository.read(document).replacingOccurrences(of: "\n", with: " ")
        }
        let text = try read("docs/PROTOCOL.md")
        for phrase in ["| length of an `id` | \(maximumIDLength) bytes of JSON |",
                       "| length of a request line | \(maximumRequestLineLength) bytes |",
                       "a request line passed \(maximumRequestLineLength) bytes",
                       "an `id` longer than \(maximumIDLength) bytes",
                       "at most \(maximumIDLength) bytes as JSON text"] {
            #expect(text.contains(phrase), "PROTOCOL.md lacks \"\(phrase)\"")
        }
        #expect(try read("man/pathd.8").contains("A line over \(maximumRequestLineLength) bytes"))
        #expect(try read("man/pathd.conf.5").contains("at most \(WatchSettings.maximumDestinations) in all"))
    }

    /// A Markdown document that names a `[Daemon]` key with a number right after it (a
    /// table cell "`MaxClients=` 1024", "`HistorySize=`, 1000 by default", "(1000)") gives
    /// the key's default there; pathd.conf(5) owns them (PackagingFilesTests).
    @Test("README.md and docs/ give a [Daemon] key's default, where they give one, as the key table has it")
    func daemonDefaultsInMarkdown() throws {
        var found = 0
        for document in ["README.md", "docs/PROTOCOL.md", "docs/FLEET.md", "docs/PERFORMANCE.md",
                         "docs/ARCHITECTURE.md", "gio-module/README.md"] {
            let text = try Repository.read(document)
            for key in DaemonSettings.keys where !key.documentedDefault.isEmpty {
                // "`HistorySize=` (1000)", "`ClientQueueLimit=` 256 KiB", "`MaxClients=`, 1024 by default"
                for mention in text.components(separatedBy: "`\(key.name)=`").dropFirst() {
                    guard let match = mention.prefixMatch(of: /[,(]? ?\(?([0-9]+(?:,[0-9]{3})*)( ?[KMG]iB)?/) else {
                        continue
                    }
                    found += 1
                    let number = String(match.1).replacing(",", with: "")
                    let written = number + (match.2.map { String($0.dropFirst($0.hasPrefix(" ") ? 1 : 0).prefix(1)) }
                                                ?? "")
                    #expect(written == key.documentedDefault,
                            "\(document): `\(key.name)=` \(match.0) is not its default \(key.documentedDefault)")
                }
            }
        }
        #expect(found >= 6, "defaults found beside their keys: \(found)")
    }

    // MARK: References to sections

    /// A comment or a document that points to a section of docs/ARCHITECTURE.md or
    /// docs/KERNEL.md (`docs/KERNEL.md, "Toolchain and kernel facts"`, which may wrap onto
    /// the next comment line) names a heading of that document, or a paragraph's bold
    /// lead: a section moved or renamed fails here until every pointer to it follows.
    @Test("every reference to a section of ARCHITECTURE.md or KERNEL.md names one that exists")
    func sectionReferences() throws {
        var sections: [String: Set<String>] = [:]
        for document in ["ARCHITECTURE.md", "KERNEL.md"] {
            let text = try Repository.read("docs/" + document)
            let headings = text.matches(of: /(?m)^#+ (.+)$/).map { String($0.1) }
            let leads = text.matches(of: /\*\*([^*\n]+?)\.\*\*/).map { String($0.1) }
            sections[document] = Set(headings + leads)
        }
        var checked = 0
        let roots = ["Sources", "Tests", "Benchmarks", "Examples", "docs", "man", "scripts", "gio-module", "README.md"]
        let kinds = [".swift", ".c", ".h", ".py", ".sh", ".md", ".1", ".5", ".8"]
        for file in roots.flatMap(Self.files(under:)) where kinds.contains(where: file.hasSuffix) {
            let raw = try Repository.read(file)
            // A line break and the next line's comment marker read as one space.
            let text = raw.replacing(/\n[ \t]*(?:\/\/\/?|#|\*|\.\\")?[ \t]*/, with: " ")
            for reference in text.matches(of: /docs\/(ARCHITECTURE\.md|KERNEL\.md),? "([^"]+)"/) {
                checked += 1
                #expect(sections[String(reference.1)]?.contains(String(reference.2)) == true,
                        "\(file): docs/\(reference.1), \"\(reference.2)\" names no section")
            }
        }
        #expect(checked >= 40, "references read: \(checked)")
    }

    /// The files under `relative` (a directory of the repository, or one file), as paths
    /// relative to the repository.
    static func files(under relative: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: Repository.path(relative), isDirectory: &isDirectory) else {
            return []
        }
        guard isDirectory.boolValue else { return [relative] }
        let walk = FileManager.default.enumerator(atPath: Repository.path(relative))
        return (walk?.allObjects as? [String] ?? []).map { relative + "/" + $0 }
    }

    // MARK: Reading the documents

    /// The text from the end of `start` to the beginning of `end`.
    static func between(_ text: String, _ start: String, _ end: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex)
        else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }

    /// The `.Cm Key=` names of an mdoc passage, in order.
    static func keyNames(_ passage: String) -> [String] {
        passage.matches(of: /\.Cm (\w+)=/).map { String($0.1) }
    }

    /// The words of an mdoc list (".Cm yes , no , true\nand\n.Cm 0 ."), in order: what
    /// `.Cm` lines name, without their punctuation.
    static func words(_ passage: String) -> [String] {
        passage.split(separator: "\n").filter { $0.hasPrefix(".Cm ") }.flatMap { line in
            line.dropFirst(4).split(separator: " ").filter { $0 != "," && $0 != "." && $0 != ";" }.map(String.init)
        }
    }

    /// A Markdown section: from its heading line to the next heading of its level or above.
    static func section(_ text: String, _ heading: String) -> String? {
        guard let start = text.range(of: "\n" + heading + "\n") else { return nil }
        let level = heading.prefix { $0 == "#" }.count
        let rest = text[start.upperBound...]
        let next = rest.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { line in
            let hashes = line.prefix { $0 == "#" }.count
            return hashes > 0 && hashes <= level && line.dropFirst(hashes).hasPrefix(" ")
        }
        let lines = rest.split(separator: "\n", omittingEmptySubsequences: false)
        return lines[..<(next ?? lines.endIndex)].joined(separator: "\n")
    }

    /// The first cell of each row of the section's first table, its backticks removed.
    static func firstColumn(_ section: String) -> [String] {
        let rows = section.split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return rows.dropFirst(2).compactMap { row in
            row.split(separator: "|").first.flatMap { backticked($0).first }
        }
    }

    /// The words in backticks, in order.
    static func backticked(_ text: some StringProtocol) -> [String] {
        String(text).matches(of: /`([^`]+)`/).map { String($0.1) }
    }
}
