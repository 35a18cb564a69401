// SPDX-License-Identifier: Apache-2.0
import ConnectivityCheck
import PathModel
import PathConfiguration
import Testing

@Suite("connectivity verdicts, proved by content")
struct ClassifierTests {
    static let body = Array("pathd-ok\n".utf8)
    static let exact = ConnectivitySettings.ExpectedContent.bytes(body)
    static let digest = ConnectivitySettings.ExpectedContent.sha256(SHA256.digest(body))

    static func response(_ status: Int, _ body: [UInt8], redirect: String? = nil) -> FetchResult {
        FetchResult(ending: .complete, httpStatus: status, redirectTarget: redirect, bytesReceived: Int64(body.count),
                    bodySHA256: SHA256.digest(body), bodyPrefix: Array(body.prefix(Self.body.count + 1)))
    }

    @Test("the expected body with a 2xx is full, given as bytes or as its SHA-256", arguments: [200, 203])
    func full(status: Int) {
        #expect(ConnectivityClassifier.classify(Self.response(status, Self.body), expected: Self.exact) == .full)
        #expect(ConnectivityClassifier.classify(Self.response(status, Self.body), expected: Self.digest) == .full)
    }

    @Test("a redirect is a portal even when its body is the expected one, and its target is evidence")
    func redirect() {
        let fetched = Self.response(302, Self.body, redirect: "http://login.example/")
        #expect(ConnectivityClassifier.classify(fetched, expected: Self.exact) == .portal)
        let result = ConnectivityClassifier.connectivity(of: fetched, expected: Self.exact, url: "http://c.example/",
                                                         interface: "wlan0", checkedAt: UTCTime(secondsSinceEpoch: 0))
        #expect(result.evidence?.redirectTarget == "http://login.example/")
        #expect(result.summary == "captive portal: http://login.example/")
    }

    @Test("other content is a portal: a login page, the body with one byte more or less, another status")
    func otherContent() {
        for fetched in [Self.response(200, Array("<html>login</html>".utf8)), Self.response(200, Self.body + [0x0A]),
                        Self.response(200, Array(Self.body.dropLast())), Self.response(503, Self.body),
                        Self.response(200, [])] {
            #expect(ConnectivityClassifier.classify(fetched, expected: Self.exact) == .portal, "\(fetched)")
            #expect(ConnectivityClassifier.classify(fetched, expected: Self.digest) == .portal, "\(fetched)")
        }
    }

    @Test("a body cut off at the size limit is a portal, not full, whatever it began with")
    func truncated() {
        var fetched = Self.response(200, Self.body)
        fetched.ending = .truncated
        #expect(ConnectivityClassifier.classify(fetched, expected: Self.exact) == .portal)
    }

    @Test("connected but failed or timed out is limited; no connection is none; each keeps libcurl's words")
    func failures() {
        let timedOut = FetchResult(ending: .failed("Operation timed out after 2000 milliseconds with 2 bytes received"),
                                   httpStatus: 200, bytesReceived: 2, bodySHA256: SHA256.digest([0x70, 0x61]))
        let refused = FetchResult(ending: .couldNotConnect("Failed to connect to 198.51.100.1 port 8080: Connection " +
                                                           "refused"))
        #expect(ConnectivityClassifier.classify(timedOut, expected: Self.exact) == .limited)
        #expect(ConnectivityClassifier.classify(refused, expected: Self.exact) == .none)
        let limited = ConnectivityClassifier.connectivity(of: timedOut, expected: Self.exact, url: "u", interface: "vA",
                                                          checkedAt: UTCTime(secondsSinceEpoch: 1))
        #expect(limited.evidence?.error?.hasPrefix("Operation timed out") == true)
        #expect(limited.evidence?.bodySHA256 == Hexadecimal.text(SHA256.digest([0x70, 0x61])))
        let none = ConnectivityClassifier.connectivity(of: refused, expected: Self.exact, url: "u", interface: "vA",
                                                       checkedAt: UTCTime(secondsSinceEpoch: 1))
        #expect(none.evidence?.httpStatus == nil && none.evidence?.bodySHA256 == nil)
    }

    @Test("a complete exchange without a status line is limited")
    func noStatus() {
        #expect(ConnectivityClassifier.classify(FetchResult(ending: .complete), expected: Self.exact) == .limited)
    }
}
