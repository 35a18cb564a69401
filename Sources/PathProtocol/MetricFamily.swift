// SPDX-License-Identifier: Apache-2.0
/// Metrics as plain values, before they are text: a family (name, type, unit, help) and
/// its samples. `Exposition.render` turns a list of them into the OpenMetrics 1.0 text
/// or the Prometheus 0.0.4 text; nothing else knows either format.
///
/// Names follow Prometheus conventions: `pathd_` first, base units (`_seconds`), and a
/// counter's family name without `_total` (the renderer appends it to the sample, as
/// OpenMetrics spells it). An info family's name has no `_info`; a state set's samples
/// carry one label named after the family.
public struct MetricFamily: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case gauge
        case counter
        /// One sample per state, 1 for the states that hold and 0 for the others.
        case stateSet = "stateset"
        /// Constant text in labels, value 1 (build information).
        case info
    }

    public var name: String
    public var kind: Kind
    /// The base unit the name ends with (`seconds`), for OpenMetrics' `# UNIT`.
    public var unit: String?
    public var help: String
    public var samples: [MetricSample]

    public init(name: String, kind: Kind, unit: String? = nil, help: String, samples: [MetricSample]) {
        precondition(Self.isValidName(name), "invalid metric name \(name)")
        precondition(unit.map { name.hasSuffix("_" + $0) } ?? true, "\(name) does not end with its unit \(unit ?? "")")
        precondition(kind != .counter || !name.hasSuffix("_total"), "a counter's family name has no _total: \(name)")
        self.name = name
        self.kind = kind
        self.unit = unit
        self.help = help
        self.samples = samples
    }

    /// One value, or one per label set.
    public static func gauge(_ name: String, unit: String? = nil, help: String,
                             _ samples: [MetricSample]) -> MetricFamily {
        MetricFamily(name: name, kind: .gauge, unit: unit, help: help, samples: samples)
    }

    public static func gauge(_ name: String, unit: String? = nil, help: String, value: Double) -> MetricFamily {
        gauge(name, unit: unit, help: help, [MetricSample(value: value)])
    }

    /// A gauge that is 1 when `flag` holds and 0 otherwise.
    public static func flag(_ name: String, help: String, _ flag: Bool) -> MetricFamily {
        gauge(name, help: help, value: flag ? 1 : 0)
    }

    public static func counter(_ name: String, unit: String? = nil, help: String,
                               _ samples: [MetricSample]) -> MetricFamily {
        MetricFamily(name: name, kind: .counter, unit: unit, help: help, samples: samples)
    }

    public static func counter(_ name: String, unit: String? = nil, help: String, value: Double) -> MetricFamily {
        counter(name, unit: unit, help: help, [MetricSample(value: value)])
    }

    /// Every state in `states`, in that order: 1 for those in `active`, 0 for the rest.
    public static func stateSet(_ name: String, help: String, states: [String], active: Set<String>) -> MetricFamily {
        MetricFamily(name: name, kind: .stateSet, help: help,
                     samples: states.map { MetricSample([MetricLabel(name, $0)], value: active.contains($0) ? 1 : 0) })
    }

    public static func info(_ name: String, help: String, labels: [MetricLabel]) -> MetricFamily {
        MetricFamily(name: name, kind: .info, help: help, samples: [MetricSample(labels, value: 1)])
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`, the metric name grammar of both formats.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first) else { return false }
        return name.utf8.allSatisfy {
            isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":")
        }
    }

    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}

/// One label: `interface="eth0"`.
public struct MetricLabel: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        precondition(Self.isValidName(name), "invalid label name \(name)")
        self.name = name
        self.value = value
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__` (reserved).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !MetricFamily.isDigit(first), !name.hasPrefix("__") else { return false }
        return name.utf8.allSatisfy { MetricFamily.isLetter($0) || MetricFamily.isDigit($0) || $0 == UInt8(ascii: "_") }
    }
}

/// One value of a family, with its labels (in the order given).
public struct MetricSample: Hashable, Sendable {
    public var labels: [MetricLabel]
    public var value: Double

    public init(_ labels: [MetricLabel] = [], value: Double) {
        self.labels = labels
        self.value = value
    }
}
