// SPDX-License-Identifier: Apache-2.0
/// The two text formats metrics are read in, from one list of `MetricFamily` values.
///
/// - **OpenMetrics 1.0** (`application/openmetrics-text; version=1.0.0`): state sets and
///   info families are types of their own, a unit has a `# UNIT` line, a counter's
///   family is named without `_total` and its sample with it, and the text ends with
///   `# EOF`. What `pathctl metrics` prints by default.
/// - **Prometheus 0.0.4** (`text/plain; version=0.0.4`): the format node_exporter's
///   textfile collector and `promtool check metrics` parse (neither reads OpenMetrics
///   in the versions Debian 12 ships: a `stateset` type is an error there). The same
///   samples, with the types it knows: a state set and an info family are gauges (the
///   compatible form OpenMetrics itself names), and a counter's `TYPE` names its
///   `_total` sample.
///
/// Both render the same sample names, labels and values, so one PromQL query reads
/// either.
public enum Exposition {
    public enum Format: String, Hashable, Sendable, CaseIterable {
        case openMetrics = "openmetrics"
        case prometheus

        /// The HTTP content type of the format.
        public var contentType: String {
            switch self {
            case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
            case .prometheus: "text/plain; version=0.0.4; charset=utf-8"
            }
        }
    }

    /// The exposition of `families`, in their order, in `format`.
    public static func render(_ families: [MetricFamily], as format: Format) -> String {
        var text = ""
        for family in families {
            let sampleName = switch family.kind {
            case .counter: family.name + "_total"
            case .info: family.name + "_info"
            case .gauge, .stateSet: family.name
            }
            switch format {
            case .openMetrics:
                text += "# TYPE \(family.name) \(family.kind.rawValue)\n"
                if let unit = family.unit { text += "# UNIT \(family.name) \(unit)\n" }
                text += "# HELP \(family.name) \(escaped(family.help, quotes: true))\n"
            case .prometheus:
                let type = switch family.kind {
                case .counter: "counter"
                case .gauge, .stateSet, .info: "gauge"
                }
                text += "# HELP \(sampleName) \(escaped(family.help, quotes: false))\n"
                text += "# TYPE \(sampleName) \(type)\n"
            }
            for sample in family.samples {
                text += sampleName
                if !sample.labels.isEmpty {
                    text += "{" + sample.labels.map { "\($0.name)=\"\(escaped($0.value, quotes: true))\"" }
                        .joined(separator: ",") + "}"
                }
                text += " " + number(sample.value) + "\n"
            }
        }
        if format == .openMetrics { text += "# EOF\n" }
        return text
    }

    /// A value as both formats write numbers: integers without a fraction, others in
    /// Swift's shortest round-trip form (`0.25`, `1e-05`), `NaN`, `+Inf`, `-Inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return String(value)
    }

    /// Backslash and newline escaped (HELP in 0.0.4), and double quotes too (label
    /// values in both formats, HELP in OpenMetrics).
    static func escaped(_ text: String, quotes: Bool) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\"" where quotes: result += "\\\""
            default: result.append(character)
            }
        }
        return result
    }
}
