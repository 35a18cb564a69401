// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Text the other end of the socket wrote (an error's message, a warning, a reason),
/// made fit for one line of a terminal or a log.
public enum PeerText {
    /// `text` on one line: its lines trimmed and joined with "; ", blank ones dropped
    /// (pathd's `configInvalid` message lists one error a line, docs/PROTOCOL.md), a tab
    /// as a space, and any other control character written as `\u{1b}`, so that nothing
    /// a peer sends breaks line-oriented output or moves a terminal's cursor.
    public static func oneLine(_ text: some StringProtocol) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { line in
            String(line.unicodeScalars.map { scalar -> String in
                switch scalar.value {
                case 0x09: " "
                case 0x00..<0x20, 0x7F..<0xA0: scalar.escapedForDisplay
                default: String(scalar)
                }
            }.joined()).trimmingBlanks
        }
        return lines.filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

extension String {
    /// Without leading and trailing spaces.
    fileprivate var trimmingBlanks: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
