// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathProtocol

/// `pathctl metrics`: the daemon's metrics as exposition text, OpenMetrics by default,
/// the Prometheus text format with `--format prometheus` (what `promtool check metrics`
/// and node_exporter read). With `--json`, the daemon's `metrics` line.
struct MetricsVerb: Verb, Equatable {
    static let format = CommandOption(OptionSpec("--format", value: "FORMAT", help: """
        metrics: openmetrics (default) or prometheus (the text
        format node_exporter and promtool read)
        """), brief: "exposition format", completion: .words(Exposition.Format.allCases.map(\.rawValue)))
    static let command = CommandSpec<any Verb.Type>(
        "metrics", summary: "print pathd's metrics (OpenMetrics or Prometheus text)", options: [format],
        action: Self.self)

    /// `--format`: the exposition format.
    var format: Exposition.Format

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        format = try line.value(Self.format).map { text throws(UsageError) in
            try OptionValue.choice(text, for: Self.format.name,
                                   among: Exposition.Format.allCases.map { ($0.rawValue, $0) })
        } ?? .openMetrics
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(global, Request(.metrics(format: format))) { message, line in
            guard case .metrics(_, let text, _) = message else { return nil }
            if global.json { echo(line) } else { writeOut(text) }
            return .success
        }
    }
}
