// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathProtocol
import Testing

@Suite("reportConnectivity requests")
struct ConnectivityRequestTests {
    static let report = #"{"state":"portal","url":"http://check.example.org/pathd","interface":"wlan0","# +
                        #""httpStatus":302,"redirectTarget":"http://login.example/","bytesReceived":0,"# +
                        #""sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","# +
                        #""elapsedMilliseconds":12,"checkedAt":"2026-12-01T08:30:00Z","error":null}"#

    static func parse(_ text: String) throws(RequestError) -> Request {
        try Request.parse(line: Array(text.utf8))
    }

    @Test("a report parses to its result, and encodes back to the same request")
    func roundTrip() throws {
        let request = try Self.parse(#"{"op":"reportConnectivity","id":1,"connectivity":\#(Self.report)}"#)
        #expect(request.op == .reportConnectivity(Fixture.portal))
        #expect(try Request.parse(line: request.encoded().dropLast()) == request)
    }

    @Test("what a probe must not send is badArgument, with the id", arguments: [
        #"{"op":"reportConnectivity","id":1}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"unknown"}}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"great"}}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":"full"}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"full","url":"u","interface":"vA","# +
        #""bytesReceived":1,"elapsedMilliseconds":1}}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"full","url":"u","interface":"vA","# +
        #""bytesReceived":1,"elapsedMilliseconds":1,"checkedAt":"yesterday"}}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"full","url":"u","interface":"vA","# +
        #""bytesReceived":-1,"elapsedMilliseconds":1,"checkedAt":"2026-12-01T08:30:00Z"}}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"full","url":"u","# +
        #""interface":"an-interface-name-too-long","bytesReceived":1,"elapsedMilliseconds":1,"# +
        #""checkedAt":"2026-12-01T08:30:00Z"}}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"full","url":"u","interface":"vA","# +
        #""bytesReceived":1,"elapsedMilliseconds":1,"checkedAt":"2026-12-01T08:30:00Z","sha256":"ABC"}}"#,
        #"{"op":"reportConnectivity","id":1,"connectivity":{"state":"full","url":"u","interface":"vA","# +
        #""httpStatus":42,"bytesReceived":1,"elapsedMilliseconds":1,"checkedAt":"2026-12-01T08:30:00Z"}}"#,
        #"{"op":"status","id":1,"connectivity":{"state":"full"}}"#,
    ])
    func refused(text: String) {
        #expect {
            try Self.parse(text)
        } throws: { error in
            guard let error = error as? RequestError else { return false }
            return error.code == .badArgument && error.id == .integer(1)
        }
    }

    @Test("timestamps: RFC 3339 UTC both ways, and nothing else")
    func timestamps() {
        #expect(UTCTime(secondsSinceEpoch: 0).description == "1970-01-01T00:00:00Z")
        #expect(UTCTime(secondsSinceEpoch: 951_782_400).description == "2000-02-29T00:00:00Z")
        #expect(UTCTime("2026-12-01T08:30:00Z")?.description == "2026-12-01T08:30:00Z")
        #expect(UTCTime("2024-02-29T23:59:59Z").map { UTCTime(secondsSinceEpoch: $0.secondsSinceEpoch + 1).description }
            == "2024-03-01T00:00:00Z")
        for bad in ["2026-02-29T00:00:00Z", "2026-12-01 08:30:00Z", "2026-12-01T08:30:00+01:00", "2026-13-01T00:00:00Z",
                    ""] {
            #expect(UTCTime(bad) == nil, "\(bad)")
        }
    }
}
