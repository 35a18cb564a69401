// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Testing

@Suite("OptionParser: the grammar both executables share")
struct OptionParserTests {
    let parser = OptionParser([
        OptionSpec("--socket", value: "PATH", help: "socket"),
        OptionSpec("--json", help: "json"),
        OptionSpec("--prohibit-type", value: "TYPE", repeatable: true, help: "type"),
        OptionSpec("--help", short: "-h", help: "help"),
    ])

    @Test("--flag value and --flag=value give the same value")
    func bothSpellings() throws {
        let separate = try parser.parse(["--socket", "/tmp/a.sock", "status"])
        let joined = try parser.parse(["--socket=/tmp/a.sock", "status"])
        #expect(separate == joined)
        #expect(separate.value("--socket") == "/tmp/a.sock")
        #expect(separate.operands == ["status"])
    }

    @Test("a value may contain '=' and may be empty when attached")
    func valueWithEquals() throws {
        #expect(try parser.parse(["--socket=/tmp/a=b"]).value("--socket") == "/tmp/a=b")
        #expect(try parser.parse(["--socket="]).value("--socket") == "")
    }

    @Test("options may follow the operands; -- ends the options")
    func placement() throws {
        let line = try parser.parse(["status", "--json", "--", "--socket"])
        #expect(line.has("--json"))
        #expect(!line.has("--socket"))
        #expect(line.operands == ["status", "--socket"])
    }

    @Test("a short alias counts as its long name")
    func shortAlias() throws {
        #expect(try parser.parse(["-h"]).has("--help"))
    }

    @Test("a single-value option given twice is a usage error, in either spelling")
    func repeatedSingleValue() {
        #expect(throws: UsageError("--socket given more than once")) {
            try parser.parse(["--socket", "/a", "--socket=/b"])
        }
        #expect(throws: UsageError("--json given more than once")) { try parser.parse(["--json", "--json"]) }
        #expect(throws: UsageError("--help given more than once")) { try parser.parse(["-h", "--help"]) }
    }

    @Test("a repeatable option keeps every value in order")
    func repeatable() throws {
        let line = try parser.parse(["--prohibit-type", "wifi", "--prohibit-type=cellular"])
        #expect(line.values("--prohibit-type") == ["wifi", "cellular"])
    }

    @Test("unknown options, missing values and values given to switches are usage errors")
    func mistakes() {
        #expect(throws: UsageError("unknown option --sock")) { try parser.parse(["--sock", "/a"]) }
        #expect(throws: UsageError("unknown option -x")) { try parser.parse(["-x"]) }
        #expect(throws: UsageError("--socket needs a value (PATH)")) { try parser.parse(["status", "--socket"]) }
        #expect(throws: UsageError("--json takes no value")) { try parser.parse(["--json=yes"]) }
    }

    @Test("the help lists every option with its value name")
    func help() {
        let text = parser.optionsHelp
        #expect(text.contains("--socket PATH"))
        #expect(text.contains("-h, --help"))
        #expect(text.split(separator: "\n").count == 4)
    }
}

@Suite("OptionValue: seconds and names")
struct OptionValueTests {
    @Test("seconds are plain decimal, kept to the millisecond", arguments: [
        ("30", Duration.seconds(30)), ("0", .zero), ("0.5", .milliseconds(500)), ("1.2345", .milliseconds(1234)),
        ("007", .seconds(7)),
    ])
    func decimalSeconds(text: String, expected: Duration) throws {
        #expect(try OptionValue.seconds(text, for: "--timeout") == expected)
    }

    @Test("anything but plain decimal is refused", arguments: [
        "", "-1", "+1", "1e3", "0x10", "inf", "nan", ".5", "5.", "1.2.3", " 1", "1 ", "١",
    ])
    func notDecimal(text: String) {
        #expect(throws: UsageError("--timeout expects a decimal number of seconds, got \"\(text)\"")) {
            try OptionValue.seconds(text, for: "--timeout")
        }
    }

    @Test("seconds too many for milliseconds are refused, not a trap")
    func tooLong() throws {
        #expect(throws: UsageError("--timeout 99999999999999999999 is too long (at most 9223372036854775 seconds)")) {
            try OptionValue.seconds("99999999999999999999", for: "--timeout")
        }
        #expect(throws: UsageError.self) { try OptionValue.seconds("9223372036854776", for: "--timeout") }
        #expect(try OptionValue.seconds("9223372036854775", for: "--timeout") == .seconds(9_223_372_036_854_775))
        #expect(try OptionValue.seconds("9223372036854775.807", for: "--timeout") == .milliseconds(Int64.max))
        #expect(throws: UsageError("--timeout 9223372036854775.808 is too long (at most 9223372036854775 seconds)")) {
            try OptionValue.seconds("9223372036854775.808", for: "--timeout")
        }
    }

    @Test("choices are matched without regard to case and listed when none matches")
    func choice() throws {
        let names = [("on", true), ("off", false)]
        #expect(try OptionValue.choice("ON", for: "--x", among: names) == true)
        #expect(throws: UsageError("--x expects one of on, off, got \"maybe\"")) {
            try OptionValue.choice("maybe", for: "--x", among: names)
        }
    }
}
