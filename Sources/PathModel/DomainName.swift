// SPDX-License-Identifier: Apache-2.0
/// DNS names as pathd takes them from anyone: pathd.conf's `[Watch] Destination=` host
/// names and `[Network] DNSDomain=`, a DHCP lease's domains (`reportLease`) and a router
/// advertisement's search list (DNSSL). One rule, so that a domain a network gives is
/// compared with the one a section names in one spelling.
public enum DomainName {
    /// The longest name, in bytes, without the root's dot (RFC 1035: 255 bytes on the
    /// wire, 253 as text).
    public static let maximumBytes = 253

    /// The name in lowercase when it is one as DNS writes them: labels of letters,
    /// digits and hyphens, 1 to 63 bytes, not starting or ending with a hyphen, at most
    /// 253 bytes in all, the last label not all digits (that would be an address); nil
    /// otherwise. A trailing dot (the root) is dropped.
    public static func canonical<Text: StringProtocol>(_ word: Text) -> String? {
        let name = word.hasSuffix(".") ? word.dropLast() : word[...]
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= maximumBytes, !labels.isEmpty, labels.allSatisfy({ label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }), !(labels.last?.allSatisfy(\.isNumber) ?? true) else { return nil }
        return name.lowercased()
    }
}
