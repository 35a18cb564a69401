// SPDX-License-Identifier: Apache-2.0
/// A set of names the protocol may grow within version 1 (docs/PROTOCOL.md, "Version
/// rule"): a value is one of the cases this version knows (`allCases`), or
/// `unrecognized` with the name a newer pathd sent, kept as it came.
///
/// Two readings, for the two sides of the socket: `init(rawValue:)` never fails, so a
/// client reads every line a newer daemon writes; `init?(known:)` accepts only the
/// cases this version knows, for what pathd itself accepts (configuration files and
/// requests are validated strictly). pathd never produces an unrecognized value.
public protocol OpenEnumeration: RawRepresentable, CaseIterable, Hashable, Sendable
    where RawValue == String, AllCases == [Self] {
    /// A name this version does not know, as the peer sent it. Never a known name:
    /// `init(rawValue:)` reads those as their case.
    static func unrecognized(_ name: String) -> Self
}

extension OpenEnumeration {
    /// The case named `rawValue`, or `unrecognized(rawValue)`. Inlinable, as the next
    /// two, so that a client's decoding of each line calls a specialized copy, not a
    /// generic one.
    @inlinable
    public init(rawValue: String) {
        self = Self(known: rawValue) ?? .unrecognized(rawValue)
    }

    /// The case named `name`; nil for a name this version does not know.
    @inlinable
    public init?(known name: String) {
        guard let value = Self.allCases.first(where: { $0.rawValue == name }) else { return nil }
        self = value
    }

    /// Whether this version knows the value (it is one of `allCases`).
    @inlinable
    public var isRecognized: Bool { Self.allCases.contains(self) }

    /// The known names, comma-separated, for an error message.
    public static var knownNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
