// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration

/// What one fetch of the check URL came to, as the HTTP client saw it, before any
/// verdict: the raw material of `ConnectivityClassifier`.
public struct FetchResult: Hashable, Sendable {
    /// How the transfer ended.
    public enum Ending: Hashable, Sendable {
        /// The response arrived whole.
        case complete
        /// The body passed `maximumBodyBytes` and the transfer was stopped there: it cannot
        /// be the expected content. `bytesReceived` is then `maximumBodyBytes` and the
        /// SHA-256 is theirs.
        case truncated
        /// No connection could be made (refused, unreachable, no route, name not
        /// resolved, the interface could not be bound, connecting timed out).
        case couldNotConnect(String)
        /// Connected, then the exchange failed or timed out.
        case failed(String)
    }

    public var ending: Ending
    /// The status line's code; nil when no response header arrived.
    public var httpStatus: Int?
    /// The target of a redirect (libcurl's CURLINFO_REDIRECT_URL; never followed).
    public var redirectTarget: String?
    public var bytesReceived: Int64
    /// SHA-256 of the body received (of what arrived, for an incomplete one).
    public var bodySHA256: [UInt8]
    /// The body, kept only up to the expected content's length plus one byte, so that
    /// `ExpectedContent=` is compared byte for byte.
    public var bodyPrefix: [UInt8]
    public var elapsedMilliseconds: Int64

    public init(ending: Ending, httpStatus: Int? = nil, redirectTarget: String? = nil, bytesReceived: Int64 = 0,
                bodySHA256: [UInt8] = SHA256.digest([]), bodyPrefix: [UInt8] = [], elapsedMilliseconds: Int64 = 0) {
        self.ending = ending
        self.httpStatus = httpStatus
        self.redirectTarget = redirectTarget
        self.bytesReceived = bytesReceived
        self.bodySHA256 = bodySHA256
        self.bodyPrefix = bodyPrefix
        self.elapsedMilliseconds = elapsedMilliseconds
    }

    /// A body past this is not read further (it cannot be a check's expected content,
    /// `ConnectivitySettings.maximumExpectedContentBytes` when given as text);
    /// pathd-probe(8) documents it.
    public static let maximumBodyBytes: Int64 = 1 << 20

    /// Why a truncated fetch failed, naming the limit it passed.
    public static let truncatedError = "body longer than \(maximumBodyBytes) bytes; read no further than that"
}

/// The verdict on a fetch, proved by content (docs/PROTOCOL.md, "connectivity"):
///
/// - no connection → `none`;
/// - connected, but no complete response (a failure or the timeout) → `limited`;
/// - a redirect (3xx) → `portal`, with its target;
/// - a 2xx whose body is the expected content → `full`;
/// - any other response (other content, a truncated body, another status) → `portal`.
///
/// A status code alone never proves anything: a portal may answer 200.
public enum ConnectivityClassifier {
    public static func classify(_ result: FetchResult,
                                expected: ConnectivitySettings.ExpectedContent) -> ConnectivityState {
        switch result.ending {
        case .couldNotConnect:
            return .none
        case .failed:
            return .limited
        case .truncated:
            return .portal
        case .complete:
            guard let status = result.httpStatus else { return .limited }
            if (300..<400).contains(status) { return .portal }
            guard (200..<300).contains(status) else { return .portal }
            return matches(result, expected) ? .full : .portal
        }
    }

    static func matches(_ result: FetchResult, _ expected: ConnectivitySettings.ExpectedContent) -> Bool {
        switch expected {
        case .bytes(let bytes):
            return result.bytesReceived == Int64(bytes.count) && result.bodyPrefix == bytes
        case .sha256(let digest):
            return result.bodySHA256 == digest
        }
    }

    /// The result with its evidence, as pathd publishes it.
    public static func connectivity(of result: FetchResult, expected: ConnectivitySettings.ExpectedContent, url: String,
                                    interface: String, checkedAt: UTCTime) -> Connectivity {
        let error: String? = switch result.ending {
        case .complete: nil
        case .truncated: FetchResult.truncatedError
        case .couldNotConnect(let why), .failed(let why): why
        }
        let evidence = ConnectivityEvidence(
            url: url, interface: interface, httpStatus: result.httpStatus, redirectTarget: result.redirectTarget,
            bytesReceived: result.bytesReceived,
            bodySHA256: result.httpStatus == nil ? nil : Hexadecimal.text(result.bodySHA256),
            elapsedMilliseconds: result.elapsedMilliseconds, checkedAt: checkedAt, error: error)
        return Connectivity(state: classify(result, expected: expected), evidence: evidence)
    }
}
