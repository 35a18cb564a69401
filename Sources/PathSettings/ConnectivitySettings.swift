// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The `[Connectivity]` section: the check `pathd-probe` makes and pathd publishes
/// (pathd.conf(5)). No URL, no check: nothing is contacted until an administrator
/// names a server. Defaults are written here and nowhere else.
public struct ConnectivitySettings: Hashable, Sendable, ConfigurationSection {
    /// What the URL must give back to prove the way to it is open.
    public enum ExpectedContent: Hashable, Sendable {
        /// `ExpectedContent=`: these exact bytes.
        case bytes([UInt8])
        /// `ExpectedSHA256=`: a body with this SHA-256 (32 bytes).
        case sha256([UInt8])
    }

    /// `URL=`: an http:// or https:// URL on a server the administrator controls; nil
    /// turns checking off.
    public var url: String?
    /// `ExpectedContent=` or `ExpectedSHA256=`, whichever was set last.
    public var expected: ExpectedContent?
    /// `Interval=`: how often to check while the path is satisfied (spread by ±10%).
    public var interval: Duration = .seconds(300)
    /// `Timeout=`: how long one fetch may take, connecting included.
    public var timeout: Duration = .seconds(10)

    public init() {}

    /// Whether checks are made at all.
    public var isEnabled: Bool { url != nil }

    public static let intervalRange: ClosedRange<Duration> = .seconds(10)...(.seconds(86_400))
    public static let timeoutRange: ClosedRange<Duration> = .milliseconds(100)...(.seconds(60))
    /// Longer URLs are refused (and longer expected contents): a check is a small thing.
    public static let maximumURLBytes = 2048
    public static let maximumExpectedContentBytes = 64 * 1024
    /// "at most 64 KiB", for the key's range and messages.
    static let expectedContentLimit = "at most \(maximumExpectedContentBytes >> 10) KiB"

    public static let sectionName = "Connectivity"
    public static var defaults: ConnectivitySettings { ConnectivitySettings() }
}

extension ConnectivitySettings {
    /// Every `[Connectivity]` key, in the order `--check-config` prints them.
    public static let keys: [ConfigurationKey<ConnectivitySettings>] = [
        ConfigurationKey("URL", .url,
                         range: "an http:// or https:// URL with a host, of at most \(maximumURLBytes) bytes",
                         "fetched through each interface of a satisfied path; empty: no check",
                         parse: { settings, value in
                             guard isCheckableURL(value) else {
                                 return .invalid(expectation: "an http:// or https:// URL with a host, of at most "
                                     + "\(maximumURLBytes) bytes")
                             }
                             settings.url = value
                             return .set
                         },
                         reset: { $0.url = nil },
                         print: { $0.url ?? "" }),
        ConfigurationKey("ExpectedContent", .text, range: "\(expectedContentLimit), with escapes",
                         "the exact body the URL serves",
                         parse: { settings, value in
                             guard let bytes = unescaped(value), bytes.count <= maximumExpectedContentBytes else {
                                 return .invalid(expectation: "text of \(expectedContentLimit), with \\n, \\r, "
                                     + "\\t, \\\\, \\s (space) and \\xHH escapes")
                             }
                             settings.expected = .bytes(bytes)
                             return .set
                         },
                         reset: { $0.expected = nil },
                         // Printed empty when neither is set; only the one set otherwise.
                         print: { settings in
                             switch settings.expected {
                             case .bytes(let bytes): escaped(bytes)
                             case .sha256: nil
                             case nil: ""
                             }
                         }),
        ConfigurationKey("ExpectedSHA256", .hex, range: "64 hexadecimal digits",
                         "the SHA-256 of the body the URL serves, instead of ExpectedContent=",
                         parse: { settings, value in
                             guard let digest = Hexadecimal.bytes(value), digest.count == 32 else {
                                 return .invalid(expectation: "64 hexadecimal digits")
                             }
                             settings.expected = .sha256(digest)
                             return .set
                         },
                         reset: { $0.expected = nil },
                         print: { settings in
                             if case .sha256(let digest) = settings.expected { Hexadecimal.text(digest) } else { nil }
                         }),
        span("Interval", \.interval, in: intervalRange, "how often to check while the path stays satisfied (±10%)"),
        span("Timeout", \.timeout, in: timeoutRange, "how long one fetch may take, shorter than Interval="),
    ]

    private static func span(_ name: String, _ setting: WritableKeyPath<ConnectivitySettings, Duration> & Sendable,
                             in range: ClosedRange<Duration>,
                             _ summary: String) -> ConfigurationKey<ConnectivitySettings> {
        let bounds = "\(TimeSpan.render(range.lowerBound)) to \(TimeSpan.render(range.upperBound))"
        return ConfigurationKey(name, .span, range: bounds, summary,
                                parse: { settings, value in
                                    guard let span = TimeSpan.parse(value), range.contains(span) else {
                                        let examples = "(such as 30s, 5min, 1h)"
                                        return .invalid(expectation: "a time span from \(bounds) \(examples)")
                                    }
                                    settings[keyPath: setting] = span
                                    return .set
                                },
                                reset: { $0[keyPath: setting] = ConnectivitySettings()[keyPath: setting] },
                                print: { TimeSpan.render($0[keyPath: setting]) })
    }

    /// What makes the section as a whole wrong, if anything: a URL without expected
    /// content, expected content without a URL, a timeout not shorter than the interval.
    /// `keys` are those a message names, the one at fault first, then the ones it clashes
    /// with: the diagnostic names where the first of them was written.
    package var inconsistency: (keys: [String], message: String)? {
        if url != nil && expected == nil {
            return (["URL"], "URL= needs ExpectedContent= or ExpectedSHA256=: the check is proved by content")
        }
        if url == nil && expected != nil {
            let key = expectedKey ?? "ExpectedContent"
            return ([key], "\(key)= is set but URL= is not; nothing would be checked")
        }
        if url != nil && timeout >= interval {
            // A default Timeout= against a written Interval=, else the URL= that turned the check on.
            return (["Timeout", "Interval", "URL"],
                    "Timeout=\(TimeSpan.render(timeout)) must be shorter than Interval=\(TimeSpan.render(interval))")
        }
        return nil
    }

    private var expectedKey: String? {
        switch expected {
        case .bytes: "ExpectedContent"
        case .sha256: "ExpectedSHA256"
        case nil: nil
        }
    }

    /// An http or https URL with a non-empty host and nothing a URL cannot hold
    /// (spaces, control characters). libcurl parses it for real; this catches typos.
    static func isCheckableURL(_ text: String) -> Bool {
        guard text.utf8.count <= maximumURLBytes,
              text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        let lower = text.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return false }
        let authority = text.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        return !host.isEmpty && !host.hasPrefix(":")
    }

    /// The value with systemd-style escapes resolved; nil for an unknown escape.
    static func unescaped(_ text: String) -> [UInt8]? {
        var result: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                result.append(byte)
                continue
            }
            switch bytes.popFirst() {
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "s"): result.append(0x20)
            case UInt8(ascii: "\\"): result.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "x"):
                guard bytes.count >= 2,
                      let value = Hexadecimal.bytes(String(decoding: bytes.prefix(2), as: UTF8.self))?.first else {
                    return nil
                }
                result.append(value)
                bytes = bytes.dropFirst(2)
            default: return nil
            }
        }
        return result
    }

    /// The form `unescaped` reads back: printable ASCII as it is (a leading or trailing
    /// space as `\s`, which the INI syntax would trim), the rest escaped.
    static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        for (offset, byte) in bytes.enumerated() {
            switch byte {
            case 0x0A: text += "\\n"
            case 0x0D: text += "\\r"
            case 0x09: text += "\\t"
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20 where offset == 0 || offset == bytes.count - 1: text += "\\s"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + Hexadecimal.text([byte])
            }
        }
        return text
    }
}
