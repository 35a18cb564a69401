// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import pathctl
import Testing

/// A verb is a type of its own file, and reaches the command line only through its entry
/// in `Commands.table`; a type nobody names compiles, so this suite reads pathctl's
/// sources for every type that conforms to `Verb` (or a protocol refining it).
@Suite("pathctl's command table")
struct CommandTableCoverageTests {
    @Test("every Verb in Sources/pathctl has its entry in Commands.table, and the table names no other")
    func everyVerbIsInTheTable() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/pathctl").standardizedFileURL
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".swift") }
        let sources = try files.map { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }
        #expect(files.count > 10, "pathctl's sources read from \(directory.path): \(files)")
        // `protocol PlainVerb: Verb`, then `struct StatusVerb: Verb, Equatable` or `extension X: PlainVerb`.
        var protocols: Set<String> = ["Verb"]
        for source in sources {
            for match in source.matches(of: /\bprotocol\s+(\w+)\s*:([^{]*)\{/)
            where match.2.split(separator: ",").contains(where: { protocols.contains($0.trimmed) }) {
                protocols.insert(String(match.1))
            }
        }
        var verbs: Set<String> = []
        for source in sources {
            for match in source.matches(of: /\b(?:struct|enum|class|extension)\s+(\w+)\s*:([^{]*)\{/)
            where match.2.split(separator: ",").contains(where: { protocols.contains($0.trimmed) }) {
                verbs.insert(String(match.1))
            }
        }
        let inTable = Set(Commands.table.commands.map { String(describing: $0.action) })
        #expect(verbs.count >= 8, "verbs found: \(verbs.sorted())")
        #expect(verbs == inTable, "verbs \(verbs.sorted()), in Commands.table \(inTable.sorted())")
    }
}

private extension Substring {
    /// The conformance's name: `Equatable` of ` Equatable `, `Verb` of `Verb where …`.
    var trimmed: String {
        String(split(whereSeparator: \.isWhitespace).first ?? "")
    }
}
