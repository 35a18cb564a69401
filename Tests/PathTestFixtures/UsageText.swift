// SPDX-License-Identifier: Apache-2.0
/// What a `--help` lists, read as a user reads it, so that tests cover every command and
/// option a program declares without keeping a list of their own.
public struct UsageText {
    public let lines: [Substring]

    public init(_ help: String) {
        lines = help.split(separator: "\n")
    }

    /// The long options: "  --socket PATH  …" or "  -h, --help  …".
    public var longOptions: [String] {
        lines.compactMap { line in
            line.firstMatch(of: /^  (?:-[A-Za-z0-9], )?(--[a-z][a-z0-9-]*)/).map { String($0.1) }
        }
    }

    /// "  status      show the current path", between "Commands:" and the blank line.
    public var commands: [String] {
        lines.drop { $0 != "Commands:" }.dropFirst().prefix { $0.hasPrefix("  ") }
            .map { String($0.split(separator: " ")[0]) }
    }

    /// The commands that take exactly one operand, with its name: "       pathctl
    /// [--socket PATH] lease [--json] INTERFACE" (no "...").
    public var singleOperands: [String: String] {
        Dictionary(lines.compactMap { line in
            line.firstMatch(of: /pathctl \[--socket PATH\] ([a-z]+) \[--json\] ([A-Z]+)$/).map {
                (String($0.1), String($0.2))
            }
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The commands with a synopsis of their own for their operands:
    /// "       pathctl [--socket PATH] route [--json] HOST...".
    public var commandsTakingHosts: Set<String> { Set(hostIntroducers.keys) }

    /// What comes before the HOSTs, by command: nothing for `route`, `--route` for
    /// `monitor` and `wait` (which also run without HOSTs).
    /// The commands that run a command line given after `--` (`run -- COMMAND [ARG...]`).
    public var commandLineRunners: Set<String> {
        Set(lines.compactMap { line in
            line.firstMatch(of: /pathctl \[--socket PATH\] ([a-z]+) \[--json\] -- COMMAND/).map { String($0.1) }
        })
    }

    public var hostIntroducers: [String: [String]] {
        Dictionary(lines.compactMap { line in
            line.firstMatch(of: /pathctl \[--socket PATH\] ([a-z]+) \[--json\] ((?:--[a-z]+ )*)HOST\.\.\./).map {
                (String($0.1), $0.2.split(separator: " ").map(String.init))
            }
        }, uniquingKeysWith: { first, _ in first })
    }
}
