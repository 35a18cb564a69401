// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

@Suite("JSONParser")
struct JSONParserTests {
    @Test(arguments: [
        ("null", JSONValue.null), ("true", .bool(true)), ("false", .bool(false)),
        ("0", .integer(0)), ("-0", .integer(0)), ("42", .integer(42)), ("-17", .integer(-17)),
        ("9223372036854775807", .integer(.max)), ("-9223372036854775808", .integer(.min)),
        ("1.5", .double(1.5)), ("-2.5e3", .double(-2500)), ("1E2", .double(100)), ("1e+2", .double(100)),
        ("1e-2", .double(0.01)), ("0.0", .double(0)), ("10.25E-1", .double(1.025)),
        (#""""#, .string("")), (#""abc""#, .string("abc")), (#""é😀日本""#, .string("é😀日本")),
        ("[]", .array([])), (#"[1,"a",null,true]"#, .array([.integer(1), .string("a"), .null, .bool(true)])),
        ("{}", .object([:])),
        (#"{"a":{"b":[true,{}]},"c":-1}"#,
         .object(["a": .object(["b": .array([.bool(true), .object([:])])]), "c": .integer(-1)])),
        (" \t\r\n 1 \n", .integer(1)),
        (#" { "k" : [ 1 , 2 ] } "#, .object(["k": .array([.integer(1), .integer(2)])])),
    ])
    func parsesValidValues(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
    }

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\u0000""#, "\u{0}"),
        (#""\u001f\u007f""#, "\u{1F}\u{7F}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""\uFFFF""#, "\u{FFFF}"),
        (#""a\u2028b""#, "a\u{2028}b"),
        (#""x\\u0041""#, "x\\u0041"),
        (#""é\né""#, "é\né"),
    ])
    func decodesEscapes(text: String, expected: String) throws {
        #expect(try JSONParser.parse(Array(text.utf8)) == .string(expected))
    }

    @Test(arguments: [
        // Trailing garbage and broken structure.
        "1 2", "{}x", "[1]]", "nul", "tru", "True", "nulll", "[1,]", #"{"a":1,}"#, #"{"a"}"#, "{a:1}", "[", "{",
        "]", "[1 2]", #"{"a":1 "b":2}"#, #"{"a" 1}"#, "'a'", #"{,}"#, "[,1]",
        // Strings.
        #""abc"#, #""\x""#, #""\u12""#, #""\u12G4""#, #""\U0041""#, #""\"#,
        // Lone surrogates.
        #""\uD800""#, #""\uDC00""#, #""\uD800\u0041""#, #""\uD800x""#, #""\uDBFF\uDBFF""#, #""\uDFFF\uD800""#,
        #""\uD800\""#,
        // Numbers: leading zeros, NaN-ish, incomplete, out of range.
        "01", "-01", "00", "007", "NaN", "nan", "Infinity", "-Infinity", "+1", ".5", "1.", "1e", "1e+", "-",
        "--1", "0x10", "1.e5", "1e400", "-1e400", "1" + String(repeating: "0", count: 400),
        // Empty and white space that JSON does not have.
        "", "   ", "\u{0C}1", "\u{A0}1", "\u{FEFF}1",
        // Duplicate member names.
        #"{"a":1,"a":2}"#, #"{"a":1,"b":{"c":1},"a":1}"#,
    ])
    func rejectsInvalidText(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test(arguments: [
        // Control characters inside strings must be escaped.
        [0x22, 0x61, 0x01, 0x62, 0x22], [0x22, 0x0A, 0x22], [0x22, 0x09, 0x22], [0x22, 0x1F, 0x22],
        // NUL bytes, inside and outside strings.
        [0x00], [0x31, 0x00], [0x00, 0x31], [0x22, 0x61, 0x00, 0x62, 0x22], [0x5B, 0x00, 0x5D],
        // Invalid UTF-8: stray bytes, overlong forms, encoded surrogates, truncated sequences.
        [0x22, 0xFF, 0x22], [0x22, 0x80, 0x22], [0x22, 0xC0, 0x80, 0x22], [0x22, 0xE0, 0x80, 0xAF, 0x22],
        [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        [0x22, 0x5C, 0x6E, 0xC3, 0x22], [0xC3, 0xA9],
    ] as [[UInt8]])
    func rejectsInvalidBytes(_ bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
    }

    @Test func nestingUpToTheLimitParses() throws {
        let depth = JSONParser.maximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONParser.parse(Array(text.utf8))
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            guard let first = elements.first else { break }
            value = first
        }
        #expect(levels == depth)
    }

    @Test func nestingOneOverTheLimitThrows() {
        let depth = JSONParser.maximumDepth + 1
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test(arguments: [
        String(repeating: "[", count: 10_000),
        String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
        String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000),
        String(repeating: #"[{"a":"#, count: 5_000),
    ])
    func deepNestingThrowsInsteadOfCrashing(_ text: String) {
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
        // It stops where the limit was crossed, not after reading the whole line.
        #expect(error.map { $0.offset <= 6 * JSONParser.maximumDepth } == true)
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775809", "18446744073709551615",
                      "123456789012345678901234567890", #"{"id":18446744073709551617}"#])
    func integersBeyondInt64AreRefusedNotRounded(text: String) {
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
        #expect(error?.isIntegerOutOfRange == true)
    }

    @Test func theLimitsOfInt64StayExact() throws {
        #expect(try JSONParser.parse(Array("9223372036854775807".utf8)) == .integer(.max))
        #expect(try JSONParser.parse(Array("-9223372036854775808".utf8)) == .integer(.min))
        #expect(try JSONParser.parse(Array("1e30".utf8)) == .double(1e30))
    }

    @Test(arguments: [("[1,x]", 3), ("  @", 2), (#"{"a":1,"a":2}"#, 11), ("[1] 2", 4)])
    func errorsReportTheOffset(text: String, offset: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
        #expect(error?.offset == offset)
        #expect(error.map { $0.description.hasSuffix("at byte \(offset)") } == true)
    }

    @Test func parsesAnySliceOfBytes() throws {
        let buffer = Array(#"xx{"k":"v"}yy"#.utf8)
        #expect(try JSONParser.parse(buffer[2..<11]) == .object(["k": .string("v")]))
    }

    @Test func valueAccessors() throws {
        let value = try JSONParser.parse(Array(#"{"s":"x","b":false,"i":3,"a":[],"n":null,"d":0.5}"#.utf8))
        #expect(value["s"]?.stringValue == "x")
        #expect(value["b"]?.boolValue == false)
        #expect(value["i"]?.integerValue == 3)
        #expect(value["a"]?.arrayValue == [])
        #expect(value["n"]?.isNull == true)
        #expect(value["d"]?.integerValue == nil)
        #expect(value["missing"] == nil)
        #expect(value["s"]?["nested"] == nil)
        #expect(value["i"]?.stringValue == nil)
        #expect(["null", "boolean", "number", "number", "string", "array", "object"]
            == [JSONValue.null, .bool(true), .integer(1), .double(1), .string(""), .array([]), .object([:])]
                .map(\.typeName))
    }
}
