// SPDX-License-Identifier: Apache-2.0
import ConnectivityCheck
import PathModel
import Testing

@Suite("the fetched body: hashed, counted and cut off exactly at the size limit")
struct BodySinkTests {
    static let limit = Int(FetchResult.maximumBodyBytes)

    /// Feeds `pieces` (sizes) of a body whose byte n is n % 251, as libcurl hands them over;
    /// returns what `take` answered for each.
    static func feed(_ sink: BodySink, _ pieces: [Int]) -> [Bool] {
        var offset = 0
        return pieces.map { size in
            let bytes = (offset..<offset + size).map { UInt8($0 % 251) }
            offset += size
            return bytes.withUnsafeBytes { sink.take($0) }
        }
    }

    static func body(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8($0 % 251) }
    }

    @Test("a body longer than the limit counts and hashes exactly the limit's bytes, in the error's words too")
    func cutOffAtTheLimit() {
        let sink = BodySink(keep: 10)
        // The pieces that once reported 1040320 bytes under a 1048576-byte limit.
        let answers = Self.feed(sink, [Self.limit - 8256, 16384, 16384])
        #expect(answers.prefix(2) == [true, false])
        #expect(sink.isTruncated)
        #expect(sink.count == FetchResult.maximumBodyBytes)
        #expect(sink.digest() == SHA256.digest(Self.body(Self.limit)))
        #expect(sink.digest() == SHA256.digest(Self.body(Self.limit)), "digest() twice gave another value")
        #expect(sink.prefix == Self.body(10))

        let fetched = FetchResult(ending: .truncated, httpStatus: 200, bytesReceived: sink.count,
                                  bodySHA256: sink.digest(), bodyPrefix: sink.prefix)
        let result = ConnectivityClassifier.connectivity(of: fetched, expected: .bytes(Array("pathd-ok\n".utf8)),
                                                         url: "u", interface: "vA",
                                                         checkedAt: UTCTime(secondsSinceEpoch: 0))
        #expect(result.state == .portal)
        #expect(result.evidence?.error == "body longer than 1048576 bytes; read no further than that")
        #expect(result.evidence?.bytesReceived == 1_048_576)
    }

    @Test("a body of exactly the limit is taken whole; one byte more is refused")
    func exactlyTheLimit() {
        let sink = BodySink(keep: 0)
        #expect(Self.feed(sink, [Self.limit / 2, Self.limit / 2]) == [true, true])
        #expect(!sink.isTruncated && sink.count == FetchResult.maximumBodyBytes)
        #expect(sink.digest() == SHA256.digest(Self.body(Self.limit)))
        #expect([0x41].withUnsafeBytes { sink.take($0) } == false)
        #expect(sink.isTruncated && sink.count == FetchResult.maximumBodyBytes)
    }

    @Test("a short body is kept only as far as the comparison needs")
    func keepsThePrefixOnly() {
        let sink = BodySink(keep: 4)
        #expect(Self.feed(sink, [3, 3]) == [true, true])
        #expect(sink.prefix == Self.body(4) && sink.count == 6 && !sink.isTruncated)
        #expect(sink.digest() == SHA256.digest(Self.body(6)))
    }
}
