// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathSettings

/// Splits systemd-style INI text into sections and `Key=Value` assignments.
///
/// The syntax, as systemd.syntax(7) describes it: `[Section]` headers; `Key=Value`
/// with whitespace around key and value trimmed; lines starting with `#` or `;` are
/// comments (only whole lines: `Key=a # b` has the value `a # b`); a line ending in `\`
/// continues on the next, joined with one space, and comment lines inside a
/// continuation are skipped. Keys and section names are case-sensitive.
///
/// Hostile input costs time linear in its length and bounded memory: a line longer than
/// `maximumLineLength`, a line holding a NUL byte, a header without `]` and text that is
/// no assignment are errors naming the line, and parsing goes on with the next line.
public enum INIParser {
    /// A logical line (after joining continuations) longer than this is an error.
    public static let maximumLineLength = 16 * 1024

    public static func parse(_ text: String, file: String) -> INIDocument {
        var log = DiagnosticLog(file: file)
        var sections: [INIDocument.Section] = []
        /// After a bad section header, its assignments are skipped without more errors.
        var inBrokenSection = false
        var continued: [UInt8] = []
        var continuedLine = 0
        var isContinuing = false
        var number = 0

        func finish(_ logical: ArraySlice<UInt8>, line: Int) {
            /// The line as a message quotes it.
            var quotedLine: String { SettingText.quoted(String(decoding: logical, as: UTF8.self)) }
            if logical.first == UInt8(ascii: "[") {
                guard logical.last == UInt8(ascii: "]"), logical.count >= 2 else {
                    log.error(line: line, "section header \(quotedLine) lacks a closing ']'")
                    inBrokenSection = true
                    return
                }
                let name = trimmed(logical.dropFirst().dropLast())
                guard !name.isEmpty, !name.contains(UInt8(ascii: "[")), !name.contains(UInt8(ascii: "]")) else {
                    log.error(line: line, "invalid section header \(quotedLine)")
                    inBrokenSection = true
                    return
                }
                inBrokenSection = false
                sections.append(INIDocument.Section(name: String(decoding: name, as: UTF8.self), line: line,
                                                    entries: []))
                return
            }
            guard let equals = logical.firstIndex(of: UInt8(ascii: "=")) else {
                log.error(line: line, "expected [Section] or Key=Value, got \(quotedLine)")
                return
            }
            let key = trimmed(logical[..<equals])
            let value = trimmed(logical[logical.index(after: equals)...])
            guard !key.isEmpty, !key.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
                log.error(line: line, "invalid key in \(quotedLine)")
                return
            }
            let keyText = String(decoding: key, as: UTF8.self)
            guard !sections.isEmpty, !inBrokenSection else {
                if !inBrokenSection { log.error(line: line, "\(keyText)= appears before any [Section]") }
                return
            }
            sections[sections.count - 1].entries.append(
                INIDocument.Entry(key: keyText, value: String(decoding: value, as: UTF8.self), line: line))
        }

        /// A continued assignment that broke a limit: its remaining lines are skipped.
        var isDiscarding = false
        func endsInBackslash<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
            trimmed(bytes).last == UInt8(ascii: "\\")
        }

        for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = raw[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let isTooLong = line.count > maximumLineLength
            if isTooLong || line.contains(0) {
                log.error(line: number, isTooLong ? "line is longer than \(maximumLineLength) bytes; ignored"
                                                  : "line contains a NUL byte; ignored")
                // Skip the whole assignment this line is part of, not only the line.
                isDiscarding = endsInBackslash(line)
                isContinuing = isDiscarding
                continued = []
                continue
            }
            let content = trimmed(line)
            if content.first == UInt8(ascii: "#") || content.first == UInt8(ascii: ";") { continue }
            if !isContinuing {
                if content.isEmpty { continue }
                continuedLine = number
            }
            if content.last == UInt8(ascii: "\\") {
                isContinuing = true
                guard !isDiscarding else { continue }
                continued.append(contentsOf: content.dropLast())
                continued.append(0x20)
                if continued.count > maximumLineLength {
                    log.error(line: continuedLine, "continued line is longer than \(maximumLineLength) bytes; ignored")
                    continued = []
                    isDiscarding = true
                }
                continue
            }
            guard isContinuing else {
                finish(ArraySlice(content), line: number)
                continue
            }
            isContinuing = false
            if isDiscarding {
                isDiscarding = false
                continue
            }
            continued.append(contentsOf: content)
            if continued.count > maximumLineLength {
                log.error(line: continuedLine, "continued line is longer than \(maximumLineLength) bytes; ignored")
            } else {
                finish(trimmed(continued[...]), line: continuedLine)
            }
            continued = []
        }
        if isContinuing && !isDiscarding { finish(trimmed(continued[...]), line: continuedLine) }
        return INIDocument(file: file, sections: sections, diagnostics: log.finished)
    }

    /// Without leading and trailing spaces and tabs.
    static func trimmed<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Bytes.SubSequence
        where Bytes.Element == UInt8 {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        var slice = bytes[...]
        while let first = slice.first, isBlank(first) { slice = slice.dropFirst() }
        while let last = slice.last, isBlank(last) { slice = slice.dropLast() }
        return slice
    }
}
