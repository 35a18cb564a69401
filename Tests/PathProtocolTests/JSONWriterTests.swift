// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

@Suite("JSONWriter")
struct JSONWriterTests {
    private static func line(_ build: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        build(&writer)
        return String(decoding: writer.finishLine(), as: UTF8.self)
    }

    @Test(arguments: [
        "", "plain", "quote\"inside", "back\\slash", "\\\"", "line\nbreak", "cr\rlf\n", "tab\there",
        "\u{0}nul", "\u{1}\u{7}\u{8}\u{B}\u{C}\u{1F}", "\u{7F}del", "é", "😀", "日本語", "</script>",
        "a\u{2028}b\u{2029}c", "\u{FEFF}bom", "e\u{301}", "{\"not\":\"json\"}",
    ])
    func stringsRoundTripThroughTheParser(_ text: String) throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member(text, text)
        writer.beginArray("list")
        writer.element(text)
        writer.endArray()
        writer.endObject()
        let line = writer.finishLine()
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(!line.dropLast().contains { $0 < 0x20 })
        let value = try JSONParser.parse(line)
        #expect(value[text] == .string(text))
        #expect(value["list"] == .array([.string(text)]))
    }

    @Test(arguments: [
        ("a\"b", #""a\"b""#), ("a\\b", #""a\\b""#), ("\n\r\t", #""\n\r\t""#),
        ("\u{0}", #""\u0000""#), ("\u{1F}", #""\u001f""#), ("\u{8}\u{C}", #""\u0008\u000c""#),
        ("é", "\"é\""), ("/", "\"/\""),
    ])
    func escapesExactly(text: String, encoded: String) {
        #expect(Self.line { $0.beginObject(); $0.member("k", text); $0.endObject() } == "{\"k\":\(encoded)}\n")
    }

    @Test("integers are written as String(_:) writes them, at every width and at the edges")
    func integersAsTheStandardLibraryWritesThem() {
        var generator = SystemRandomNumberGenerator()
        var signed: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_000_000_007, .max, .min, .max - 1, .min + 1]
        var unsigned: [UInt64] = [0, 9, 10, .max, .max - 1, UInt64(Int64.max) + 1]
        for _ in 0..<2_000 {
            signed.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63))
            unsigned.append(UInt64.random(in: 0 ... .max, using: &generator) >> UInt64.random(in: 0...63))
        }
        for value in signed {
            #expect(Self.line { $0.beginObject(); $0.member("n", value); $0.endObject() } == "{\"n\":\(value)}\n")
            #expect(Self.line { $0.value(.integer(value)) } == "\(value)\n")
        }
        for value in unsigned {
            #expect(Self.line { $0.beginObject(); $0.member("n", value); $0.endObject() } == "{\"n\":\(value)}\n")
        }
        let small: [Int8] = [.min, -1, 0, .max]
        for value in small {
            #expect(Self.line { $0.beginObject(); $0.member("n", value as Int8?); $0.endObject() }
                    == "{\"n\":\(value)}\n")
        }
        #expect(Self.line { $0.beginObject(); $0.member("n", nil as Int?); $0.endObject() } == "{\"n\":null}\n")
    }

    @Test(arguments: [
        "0.0.0.0", "192.0.2.1", "255.255.255.255", "::", "::1", "fe80::1", "2001:db8::10", "::ffff:192.0.2.1",
        "2001:db8:0:1:1:1:1:1", "1::", "ff02::1:ff00:1",
    ])
    func addressesAreWrittenInPlaceAsTheirDescription(_ text: String) throws {
        let address = try #require(IPAddress(text))
        let described = Self.line { $0.beginObject(); $0.member("a", address.description); $0.endObject() }
        #expect(Self.line { $0.beginObject(); $0.member("a", address); $0.endObject() } == described)
        #expect(Self.line { $0.beginObject(); $0.beginArray("l"); $0.element(address); $0.element(address)
                            $0.endArray(); $0.endObject() } == "{\"l\":[\"\(address)\",\"\(address)\"]}\n")
        #expect(Self.line { $0.beginObject(); $0.member("a", nil as IPAddress?); $0.endObject() } == "{\"a\":null}\n")
    }

    @Test func networkIDsAreWrittenInPlaceAsTheirDescription() throws {
        let id = try #require(NetworkID(bytes: Array(0xF0...0xFF)))
        #expect(Self.line { $0.beginObject(); $0.member("id", id); $0.endObject() }
                == "{\"id\":\"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff\"}\n")
        #expect(Self.line { $0.beginObject(); $0.member("id", nil as NetworkID?); $0.endObject() } == "{\"id\":null}\n")
    }

    @Test func writesNestedStructureInOrder() {
        let text = Self.line { writer in
            writer.beginObject()
            writer.member("type", "t")
            writer.member("none", nil as String?)
            writer.member("flag", true)
            writer.member("off", false)
            writer.member("small", Int64.min)
            writer.member("big", UInt64.max)
            writer.beginArray("items")
            writer.beginObject()
            writer.member("n", 1)
            writer.endObject()
            writer.beginObject()
            writer.endObject()
            writer.endArray()
            writer.beginArray("empty")
            writer.endArray()
            writer.beginObject("inner")
            writer.member("x", "y")
            writer.endObject()
            writer.member("value",
                          JSONValue.object(["z": .null, "a": .array([.integer(1), .double(0.5), .bool(false)])]))
            writer.endObject()
        }
        #expect(text == #"{"type":"t","none":null,"flag":true,"off":false,"small":-9223372036854775808,"#
            + #""big":18446744073709551615,"items":[{"n":1},{}],"empty":[],"inner":{"x":"y"},"#
            + #""value":{"a":[1,0.5,false],"z":null}}"# + "\n")
    }

    @Test(arguments: [
        JSONValue.null, .bool(true), .integer(-3), .double(1.25), .double(1e20), .double(-2.5e-8), .string("s\"\n"),
        .array([]), .array([.array([.object([:])])]),
        .object(["b": .integer(1), "a": .string("x"), "é": .bool(false), "": .null]),
    ])
    func jsonValuesRoundTrip(_ value: JSONValue) throws {
        let line = Self.line { $0.beginObject(); $0.member("v", value); $0.endObject() }
        #expect(try JSONParser.parse(Array(line.utf8)) == .object(["v": value]))
    }
}
