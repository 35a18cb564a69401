import PathProtocol

/// `pathctl metrics`: the daemon's metrics as exposition text, OpenMetrics by default,
/// the Prometheus text format with `--format prometheus` (what `promtool check metrics`
/// and node_exporter read). With `--json`, the daemon's `metrics` line.
enum MetricsVerb: Verb {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(options, Request(.metrics(format: options.metricsFormat))) { message, line in
            guard case .metrics(_, let text, _) = message else { return nil }
            if options.json { echo(line) } else { writeOut(text) }
            return .success
        }
    }
}
