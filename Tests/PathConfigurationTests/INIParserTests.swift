// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

@Suite("INI parser (systemd unit syntax)")
struct INIParserTests {
    @Test("sections, assignments, comments, whitespace and continuations")
    func syntax() {
        let text = """
            # a comment
            ; another
            [Daemon]
              MaxClients = 10\t
            Empty=
            Value=a # not a comment
            [Interface]
            Name=eth0 \\
            # skipped inside a continuation
              wlan0
            Expensive=yes\r
            """
        let document = INIParser.parse(text, file: "pathd.conf")
        #expect(document.diagnostics.isEmpty)
        #expect(document.sections.map(\.name) == ["Daemon", "Interface"])
        #expect(document.sections[0].line == 3)
        #expect(document.sections[0].entries == [
            .init(key: "MaxClients", value: "10", line: 4),
            .init(key: "Empty", value: "", line: 5),
            .init(key: "Value", value: "a # not a comment", line: 6),
        ])
        #expect(document.sections[1].entries == [
            .init(key: "Name", value: "eth0  wlan0", line: 8),
            .init(key: "Expensive", value: "yes", line: 11),
        ])
    }

    @Test("a continuation at the end of the file ends the assignment")
    func continuationAtEnd() {
        let document = INIParser.parse("[Interface]\nName=eth0 \\", file: "f")
        #expect(document.diagnostics.isEmpty)
        #expect(document.sections[0].entries.first?.value == "eth0")
    }

    @Test("syntax errors name file and line and parsing goes on")
    func errors() {
        let text = """
            Orphan=1
            [Interface
            Name=eth0
            []
            [Daemon]
            no equals sign
            =value
            MaxClients=5
            """
        let document = INIParser.parse(text, file: "/etc/pathd/pathd.conf")
        let rendered = document.diagnostics.map(\.description)
        #expect(rendered == [
            "/etc/pathd/pathd.conf:1: Orphan= appears before any [Section]",
            "/etc/pathd/pathd.conf:2: section header \"[Interface\" lacks a closing ']'",
            "/etc/pathd/pathd.conf:4: invalid section header \"[]\"",
            "/etc/pathd/pathd.conf:6: expected [Section] or Key=Value, got \"no equals sign\"",
            "/etc/pathd/pathd.conf:7: invalid key in \"=value\"",
        ])
        #expect(document.diagnostics.allSatisfy { $0.severity == .error })
        // The broken section's assignment was dropped, the next section parsed.
        #expect(document.sections.map(\.name) == ["Daemon"])
        #expect(document.sections[0].entries.map(\.key) == ["MaxClients"])
    }

    @Test("a NUL byte is an error for its line only")
    func nulByte() {
        let document = INIParser.parse("[Daemon]\nMax\u{0}Clients=3\nLogLevel=debug\n", file: "f")
        #expect(document.diagnostics.map(\.description) == ["f:2: line contains a NUL byte; ignored"])
        #expect(document.sections[0].entries.map(\.key) == ["LogLevel"])
    }

    @Test("a huge line is an error, not a crash")
    func hugeLine() {
        let huge = "Name=" + String(repeating: "x", count: 10 * INIParser.maximumLineLength)
        let document = INIParser.parse("[Interface]\n\(huge)\nExpensive=yes\n", file: "f")
        #expect(document.diagnostics.map(\.line) == [2])
        #expect(document.diagnostics[0].severity == .error)
        #expect(document.sections[0].entries.map(\.key) == ["Expensive"])
    }

    @Test("an endless continuation is cut at the line limit")
    func hugeContinuation() {
        let piece = String(repeating: "y", count: 1000) + " \\\n"
        let text = "[Interface]\nName=" + String(repeating: piece, count: 100) + "end\nExpensive=no\n"
        let document = INIParser.parse(text, file: "f")
        #expect(document.diagnostics.count == 1)
        #expect(document.diagnostics.first?.line == 2)
        #expect(document.sections[0].entries.last?.key == "Expensive")
    }

    @Test("a million bad lines keep a bounded list of diagnostics")
    func boundedDiagnostics() {
        let text = String(repeating: "garbage\n", count: 100_000)
        let document = INIParser.parse(text, file: "f")
        #expect(document.diagnostics.count == 65)
        #expect(document.diagnostics.last?.description == "f: 99936 more errors and 0 more warnings not shown")
    }

    @Test("thousands of sections parse in one pass")
    func manySections() {
        let text = String(repeating: "[Interface]\nName=veth*\n", count: 20_000)
        let document = INIParser.parse(text, file: "f")
        #expect(document.diagnostics.isEmpty)
        #expect(document.sections.count == 20_000)
        #expect(document.sections.last?.line == 39_999)
    }

    @Test("control characters in a quoted value are escaped in messages")
    func escapedMessages() {
        let document = INIParser.parse("[Daemon]\n\u{1b}[31mred\n", file: "f")
        #expect(document.diagnostics.first?.message == "expected [Section] or Key=Value, got \"\\u{1b}[31mred\"")
    }
}
