// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

@Suite("LineFramer")
struct LineFramerTests {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    private static func line(_ text: String) -> LineFramer.Output { .line(bytes(text)) }

    @Test func splitsLines() {
        var framer = LineFramer()
        #expect(framer.push(Self.bytes("a\nbc\n\nd\n"))
                == [Self.line("a"), Self.line("bc"), Self.line(""), Self.line("d")])
        #expect(framer.bufferedByteCount == 0)
        #expect(framer.push([UInt8]()) == [])
    }

    @Test func stripsOneTrailingCarriageReturn() {
        var framer = LineFramer()
        #expect(framer.push(Self.bytes("a\r\nb\r\r\n\r\nc\rd\n")) == [Self.line("a"), Self.line("b\r"), Self.line(""),
                                                                   Self.line("c\rd")])
    }

    @Test func carriageReturnAndNewlineInSeparatePushes() {
        var framer = LineFramer()
        #expect(framer.push(Self.bytes("ping\r")) == [])
        #expect(framer.push(Self.bytes("\n")) == [Self.line("ping")])
    }

    @Test func keepsPartialLinesAcrossPushes() {
        var framer = LineFramer()
        #expect(framer.push(Self.bytes("hel")) == [])
        #expect(framer.bufferedByteCount == 3)
        #expect(framer.push(Self.bytes("lo\nwor")) == [Self.line("hello")])
        #expect(framer.bufferedByteCount == 3)
        #expect(framer.push(Self.bytes("ld\n{")) == [Self.line("world")])
        #expect(framer.bufferedByteCount == 1)
    }

    @Test func oneBytePushes() {
        var framer = LineFramer()
        var outputs: [LineFramer.Output] = []
        for byte in Self.bytes(#"{"op":"ping"}"# + "\r\nab\nc") { outputs += framer.push([byte]) }
        #expect(outputs == [Self.line(#"{"op":"ping"}"#), Self.line("ab")])
        #expect(framer.bufferedByteCount == 1)
    }

    @Test func pushesAnyCollectionOfBytes() {
        var framer = LineFramer()
        let buffer = Self.bytes("xxa\nb\nyy")
        #expect(framer.push(buffer[2..<6]) == [Self.line("a"), Self.line("b")])
        #expect(framer.push(Self.bytes("c\n").reversed().reversed()) == [Self.line("c")])
    }

    @Test func defaultLimitIsTheProtocolLimit() {
        #expect(LineFramer().maximumLineLength == maximumRequestLineLength)
        #expect(maximumRequestLineLength == 65_536)
    }

    @Test func lineOfExactlyTheLimitPasses() {
        var framer = LineFramer(maximumLineLength: 8)
        #expect(framer.push(Self.bytes("12345678\n")) == [Self.line("12345678")])
        #expect(framer.push(Self.bytes("1234")) == [])
        #expect(framer.push(Self.bytes("5678")) == [])
        #expect(framer.bufferedByteCount == 8)
        #expect(framer.push(Self.bytes("\n")) == [Self.line("12345678")])
    }

    @Test func defaultLimitExactlyPasses() {
        var framer = LineFramer()
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: maximumRequestLineLength)
        #expect(framer.push(payload + [UInt8(ascii: "\n")]) == [.line(payload)])
        #expect(framer.push(payload + [UInt8(ascii: "x"), UInt8(ascii: "\n")]) == [.overflow])
    }

    @Test func lineOfTheLimitPlusOneOverflows() {
        var framer = LineFramer(maximumLineLength: 8)
        #expect(framer.push(Self.bytes("ok\n123456789\nnext\n")) == [Self.line("ok"), .overflow])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func limitPlusOneAcrossPushesOverflows() {
        var framer = LineFramer(maximumLineLength: 8)
        #expect(framer.push(Self.bytes("12345")) == [])
        #expect(framer.push(Self.bytes("6789\n")) == [.overflow])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func overflowWithoutNewline() {
        var framer = LineFramer(maximumLineLength: 8)
        #expect(framer.push(Self.bytes("123456789")) == [.overflow])
        #expect(framer.bufferedByteCount == 0)

        var slow = LineFramer(maximumLineLength: 8)
        for byte in Self.bytes("12345678") { #expect(slow.push([byte]) == []) }
        #expect(slow.push(Self.bytes("9")) == [.overflow])
        #expect(slow.bufferedByteCount == 0)
    }

    @Test func overflowAfterCompleteLinesWithoutNewline() {
        var framer = LineFramer(maximumLineLength: 4)
        #expect(framer.push(Self.bytes("ab\ncdefg")) == [Self.line("ab"), .overflow])
    }
}

@Suite("line framer, end of input")
struct LineFramerFinishTests {
    @Test("a last line without a newline is handed over at the end; an empty tail is not")
    func finish() {
        var framer = LineFramer()
        #expect(framer.push(Array("a\r\n\n{\"op\":\"ping\"}".utf8)) == [.line(Array("a".utf8)), .line([])])
        #expect(framer.finish() == Array("{\"op\":\"ping\"}".utf8))
        #expect(framer.finish() == nil)
        #expect(framer.push(Array("x\n".utf8)) == [.line(Array("x".utf8))])
        #expect(framer.finish() == nil)
    }

    @Test("a million empty lines in one push are each handed over, empty")
    func emptyLines() {
        var framer = LineFramer()
        let bytes = [UInt8](repeating: UInt8(ascii: "\n"), count: 1_000_000)
        var count = 0
        let fits = bytes.withUnsafeBytes { raw in framer.push(raw) { line in count += line.isEmpty ? 1 : 0 } }
        #expect(fits)
        #expect(count == 1_000_000)
    }
}
