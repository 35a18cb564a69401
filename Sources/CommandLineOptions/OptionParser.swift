// SPDX-License-Identifier: Apache-2.0
/// The one command-line grammar of pathd and pathctl, as getopt_long(3) spells long
/// options: `--flag value` and `--flag=value` alike, `--` ends the options, and options
/// may come before or after the operands. Unlike getopt, an option that is not declared
/// repeatable may be given only once: a second `--socket` is a mistake to report, not a
/// value to override silently.

/// A mistake on the command line (exit status 2); `description` says what it is.
public struct UsageError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One option a program accepts.
public struct OptionSpec: Hashable, Sendable {
    /// The long name with its dashes, `--socket`.
    public let name: String
    /// A short alias with its dash, `-h`; short options are never bundled.
    public let shortName: String?
    /// What the value is called in help text (`PATH`); nil for a switch, which takes none.
    public let valueName: String?
    /// Whether the option may be given more than once (each value is kept).
    public let isRepeatable: Bool
    /// One line (or a few) of help, for the usage text.
    public let help: String

    public init(_ name: String, short shortName: String? = nil, value valueName: String? = nil,
                repeatable isRepeatable: Bool = false, help: String) {
        self.name = name
        self.shortName = shortName
        self.valueName = valueName
        self.isRepeatable = isRepeatable
        self.help = help
    }

    public var takesValue: Bool { valueName != nil }

    /// `-h, --help` or `--socket PATH`, as the usage text lists it.
    public var synopsis: String {
        (shortName.map { "\($0), " } ?? "") + name + (valueName.map { " \($0)" } ?? "")
    }
}

/// A command line taken apart: the options given, in order, and the operands.
public struct ParsedCommandLine: Equatable, Sendable {
    public struct Occurrence: Equatable, Sendable {
        /// The option's long name, whichever spelling was typed.
        public let name: String
        public let value: String?
    }

    public private(set) var occurrences: [Occurrence] = []
    public private(set) var operands: [String] = []

    public func has(_ name: String) -> Bool {
        occurrences.contains { $0.name == name }
    }

    /// The value of a single-value option, nil when it was not given.
    public func value(_ name: String) -> String? {
        occurrences.first { $0.name == name }?.value
    }

    /// Every value of a repeatable option, in command-line order.
    public func values(_ name: String) -> [String] {
        occurrences.filter { $0.name == name }.compactMap(\.value)
    }

    /// The long names given, in order, each once.
    public var names: [String] {
        var seen: Set<String> = []
        return occurrences.map(\.name).filter { seen.insert($0).inserted }
    }

    /// This line with `other`'s options and operands after its own, as if both were one
    /// command line: a single-value option of `options` given in both is a mistake.
    public func adding(_ other: ParsedCommandLine, options: [OptionSpec]) throws(UsageError) -> ParsedCommandLine {
        var result = self
        for occurrence in other.occurrences {
            let isSingle = options.contains { $0.name == occurrence.name && !$0.isRepeatable }
            if isSingle, result.has(occurrence.name) {
                throw UsageError("\(occurrence.name) given more than once")
            }
            result.add(occurrence.name, occurrence.value)
        }
        other.operands.forEach { result.addOperand($0) }
        return result
    }

    fileprivate mutating func add(_ name: String, _ value: String?) {
        occurrences.append(Occurrence(name: name, value: value))
    }
    fileprivate mutating func addOperand(_ operand: String) { operands.append(operand) }
}

/// Splits arguments into options and operands by a table of `OptionSpec`s.
public struct OptionParser: Sendable {
    public let options: [OptionSpec]

    public init(_ options: [OptionSpec]) {
        self.options = options
    }

    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommandLine {
        var result = ParsedCommandLine()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                remaining.forEach { result.addOperand($0) }
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                result.addOperand(argument)
                continue
            }
            var typed = argument
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                typed = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.name == typed || $0.shortName == typed }) else {
                throw UsageError("unknown option \(typed)")
            }
            if !spec.isRepeatable && result.has(spec.name) {
                throw UsageError("\(spec.name) given more than once")
            }
            if !spec.takesValue {
                if attached != nil { throw UsageError("\(spec.name) takes no value") }
                result.add(spec.name, nil)
                continue
            }
            guard let value = attached ?? remaining.popFirst() else {
                throw UsageError("\(spec.name) needs a value (\(spec.valueName ?? "a value"))")
            }
            result.add(spec.name, value)
        }
        return result
    }

    /// The options as a usage text lists them: synopsis, then the help indented.
    public var optionsHelp: String {
        let column = 24
        return options.map { spec in
            let lines = spec.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let head = "  " + spec.synopsis
            let indent = String(repeating: " ", count: column)
            let first = head.count < column - 1
                ? head + String(repeating: " ", count: column - head.count) + lines[0]
                : head + "\n" + indent + lines[0]
            return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
