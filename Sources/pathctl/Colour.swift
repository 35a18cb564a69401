// SPDX-License-Identifier: Apache-2.0
/// Whether human output may be coloured, as https://no-color.org and most terminal tools
/// decide it: only on a terminal, never for `--json`, never with `--no-color`, never when
/// `NO_COLOR` is in the environment (whatever its value, even empty) or `TERM` is `dumb`.
enum ColourPolicy {
    static func isEnabled(noColorOption: Bool, json: Bool, outputIsTerminal: Bool,
                                 environment: (String) -> String?) -> Bool {
        guard outputIsTerminal, !json, !noColorOption else { return false }
        if environment("NO_COLOR") != nil { return false }
        return environment("TERM") != "dumb"
    }
}

/// The SGR colours the status uses (ECMA-48), each undone by `reset`.
enum TerminalColour: String, Sendable {
    case green = "\u{1B}[32m"
    case red = "\u{1B}[31m"
    case yellow = "\u{1B}[33m"

    static let reset = "\u{1B}[0m"

    func paint(_ text: String) -> String { rawValue + text + Self.reset }
}
