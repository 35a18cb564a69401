// SPDX-License-Identifier: Apache-2.0
/// What a connectivity check found beyond the path (docs/ARCHITECTURE.md, "The
/// connectivity check"): whether a configured URL gave back its expected content. Kept
/// apart from `Path`: a check never changes a path's status or any other of its fields.
///
/// Open (docs/PROTOCOL.md, "Version rule"): a newer pathd may publish a state this
/// version does not know; a report to pathd must be one of `allCases` but `unknown`.
public enum ConnectivityState: OpenEnumeration {
    /// The expected content came back: the Internet (or at least that server) answers.
    case full
    /// Something answered in its place: a redirect (its target is in the evidence) or
    /// other content. A captive portal's login page, typically.
    case portal
    /// A connection was made, but the exchange failed or timed out.
    case limited
    /// No connection could be made.
    case none
    /// Not checked yet, or checking is not configured.
    case unknown
    /// A state a newer pathd sent, by its name.
    case unrecognized(String)

    public static let allCases: [ConnectivityState] = [.full, .portal, .limited, .none, .unknown]

    public var rawValue: String {
        switch self {
        case .full: "full"
        case .portal: "portal"
        case .limited: "limited"
        case .none: "none"
        case .unknown: "unknown"
        case .unrecognized(let name): name
        }
    }

    /// For a person: "captive portal", "no Internet access".
    public var explanation: String {
        switch self {
        case .full: "Internet reachable"
        case .portal: "captive portal"
        case .limited: "limited connectivity"
        case .none: "no Internet access"
        case .unknown: "connectivity not checked"
        case .unrecognized(let name): name
        }
    }
}

/// How one check went, so that its verdict can be verified by a person: what was
/// fetched, through what, and what came back.
public struct ConnectivityEvidence: Hashable, Sendable {
    /// The URL fetched (`[Connectivity] URL=`).
    public var url: String
    /// The interface the fetch was bound to.
    public var interface: String
    /// The HTTP status of the response; nil when none arrived.
    public var httpStatus: Int?
    /// Where a redirect pointed (it is never followed); nil without one.
    public var redirectTarget: String?
    /// Bytes of the response body received.
    public var bytesReceived: Int64
    /// SHA-256 of the body received, 64 lowercase hex digits; nil when no response arrived.
    public var bodySHA256: String?
    /// From the start of the fetch to its end.
    public var elapsedMilliseconds: Int64
    /// When the fetch started.
    public var checkedAt: UTCTime
    /// What went wrong, in libcurl's words; nil when a response arrived whole.
    public var error: String?

    public init(url: String, interface: String, httpStatus: Int? = nil, redirectTarget: String? = nil,
                bytesReceived: Int64 = 0, bodySHA256: String? = nil, elapsedMilliseconds: Int64 = 0,
                checkedAt: UTCTime, error: String? = nil) {
        self.url = url
        self.interface = interface
        self.httpStatus = httpStatus
        self.redirectTarget = redirectTarget
        self.bytesReceived = bytesReceived
        self.bodySHA256 = bodySHA256
        self.elapsedMilliseconds = elapsedMilliseconds
        self.checkedAt = checkedAt
        self.error = error
    }
}

/// A connectivity result: the state and the evidence of the check that found it (none
/// when `unknown`).
public struct Connectivity: Hashable, Sendable {
    public var state: ConnectivityState
    public var evidence: ConnectivityEvidence?

    public init(state: ConnectivityState, evidence: ConnectivityEvidence?) {
        self.state = state
        self.evidence = evidence
    }

    public static let unknown = Connectivity(state: .unknown, evidence: nil)

    /// What a change is made of: the state, and what it is about (URL, interface, where
    /// a portal redirects). Two checks that agree on these are the same news, whatever
    /// their timings; subscribers are told only when it changes.
    public struct Verdict: Hashable, Sendable {
        public var state: ConnectivityState
        public var url: String?
        public var interface: String?
        public var redirectTarget: String?
    }

    public var verdict: Verdict {
        Verdict(state: state, url: evidence?.url, interface: evidence?.interface,
                redirectTarget: evidence?.redirectTarget)
    }

    /// "captive portal: http://login.example/" or "no Internet access".
    public var summary: String {
        if state == .portal, let target = evidence?.redirectTarget { return "\(state.explanation): \(target)" }
        return state.explanation
    }
}
