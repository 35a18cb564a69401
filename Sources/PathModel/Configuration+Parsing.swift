extension Configuration {
    /// Parses and merges files in order: the main file first, then its drop-ins in
    /// lexical order (the caller lists and reads them). A `[Daemon]` key set in a later
    /// file replaces the earlier value; `[Interface]` sections accumulate in order.
    /// Unknown sections and keys are warnings; syntax and value errors make the result
    /// invalid.
    public static func parse(_ sources: [ConfigurationSource], base: Configuration = .builtIn) -> ConfigurationResult {
        var configuration = base
        var diagnostics: [ConfigurationDiagnostic] = []
        var interfaceSections = 0
        for source in sources {
            let document = INIParser.parse(source.text, file: source.name)
            var log = DiagnosticLog(file: source.name)
            for section in document.sections {
                switch section.name {
                case "Daemon":
                    for entry in section.entries { applyDaemon(entry, to: &configuration.daemon, log: &log) }
                case "Interface":
                    interfaceSections += 1
                    if interfaceSections == maximumInterfaceSections + 1 {
                        log.error(line: section.line, "more than \(maximumInterfaceSections) [Interface] sections")
                    }
                    guard interfaceSections <= maximumInterfaceSections else { continue }
                    var rule = InterfaceRule(origin: "\(source.name):\(section.line)")
                    for entry in section.entries { applyInterface(entry, to: &rule, log: &log) }
                    configuration.policy.rules.append(rule)
                default:
                    let hint = ["Daemon", "Interface"].first { $0.lowercased() == section.name.lowercased() }
                    log.warning(line: section.line, "unknown section [\(section.name)]"
                        + (hint.map { " (did you mean [\($0)]?)" } ?? "") + "; ignored")
                }
            }
            diagnostics += (document.diagnostics + log.finished).sorted { ($0.line == 0 ? Int.max : $0.line) < ($1.line == 0 ? Int.max : $1.line) }
        }
        return ConfigurationResult(configuration: configuration, diagnostics: diagnostics)
    }

    static let daemonKeys = ["Socket", "LookupIPv4", "LookupIPv6", "MaxClients", "ClientQueueLimit", "ReceiveBuffer", "ResolvConf",
                             "UpstreamResolvConf", "LogLevel"]
    static let interfaceKeys = ["Name", "Type", "Kind", "Expensive", "Constrained", "SetType", "OnDemand", "Ignore"]

    private static func applyDaemon(_ entry: INIDocument.Entry, to daemon: inout DaemonSettings, log: inout DiagnosticLog) {
        switch daemon.set(entry.key, to: entry.value) {
        case .set:
            break
        case .invalid(let expectation):
            log.error(line: entry.line, "\(entry.key)= expects \(expectation), got \(quoted(entry.value))")
        case .unknownKey:
            unknownKey(entry, section: "Daemon", known: daemonKeys, log: &log)
        }
    }

    private static func applyInterface(_ entry: INIDocument.Entry, to rule: inout InterfaceRule, log: inout DiagnosticLog) {
        let value = entry.value
        func flag() -> Bool?? {
            if value.isEmpty { return .some(nil) }
            guard let parsed = parseBoolean(value) else {
                log.error(line: entry.line, "\(entry.key)= expects a boolean (yes, no, true, false, on, off, 1, 0), got \(quoted(value))")
                return nil
            }
            return .some(parsed)
        }
        let terms = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch entry.key {
        case "Name", "Kind":
            // An empty assignment resets the list, as in systemd; terms accumulate otherwise.
            var list = entry.key == "Name" ? rule.match.name : rule.match.kind
            if terms.isEmpty { list = MatchList() }
            for term in terms {
                guard term != "!" else {
                    return log.error(line: entry.line, "\(entry.key)= has a lone \"!\"; write !PATTERN with no space")
                }
                list.append(term)
            }
            if entry.key == "Name" { rule.match.name = list } else { rule.match.kind = list }
        case "Type":
            if terms.isEmpty { rule.match.type = MatchList() }
            for term in terms {
                let name = term.hasPrefix("!") ? String(term.dropFirst()) : term
                guard InterfaceType(rawValue: name) != nil else {
                    let known = InterfaceType.allCases.map(\.rawValue).joined(separator: ", ")
                    return log.error(line: entry.line, "Type= expects types among \(known) (each may start with !), got \(quoted(term))")
                }
                rule.match.type.append(term)
            }
        case "SetType":
            if value.isEmpty {
                rule.setType = nil
                return
            }
            guard let type = InterfaceType(rawValue: value) else {
                let known = InterfaceType.allCases.map(\.rawValue).joined(separator: ", ")
                return log.error(line: entry.line, "SetType= expects one of \(known), got \(quoted(value))")
            }
            rule.setType = type
        case "Expensive":
            if let parsed = flag() { rule.isExpensive = parsed }
        case "Constrained":
            if let parsed = flag() { rule.isConstrained = parsed }
        case "OnDemand":
            if let parsed = flag() { rule.isOnDemand = parsed }
        case "Ignore":
            if let parsed = flag() { rule.isIgnored = parsed }
        default:
            unknownKey(entry, section: "Interface", known: interfaceKeys, log: &log)
        }
    }

    private static func unknownKey(_ entry: INIDocument.Entry, section: String, known: [String], log: inout DiagnosticLog) {
        let hint = known.first { $0.lowercased() == entry.key.lowercased() }
        log.warning(line: entry.line, "unknown key \(entry.key)= in [\(section)]"
            + (hint.map { " (did you mean \($0)=?)" } ?? "") + "; ignored")
    }

    /// systemd's booleans: yes/no, true/false, on/off, 1/0, any case.
    public static func parseBoolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "on", "1": true
        case "no", "false", "off", "0": false
        default: nil
        }
    }

    /// A byte count with an optional K, M or G suffix (powers of 1024, as systemd's).
    static func parseSize(_ text: String) -> Int? {
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        guard let last = text.last else { return nil }
        let multiplier = multipliers[Character(last.uppercased())]
        let digits = multiplier == nil ? Substring(text) : text.dropLast()
        guard digits.count <= 12, let number = Int(digits), number >= 0 else { return nil }
        return number * (multiplier ?? 1)
    }
}

/// What setting one `[Daemon]` key came to.
public enum DaemonSettingOutcome: Equatable, Sendable {
    case set
    /// The value is not what the key takes; `expectation` says what it takes.
    case invalid(expectation: String)
    case unknownKey
}

extension DaemonSettings {
    /// Sets one `[Daemon]` key from its text as pathd.conf(5) describes; an empty value
    /// restores the default. Changes nothing unless the outcome is `.set`. The file and
    /// pathd's flags both come through here, so they take the same values.
    public mutating func set(_ key: String, to value: String) -> DaemonSettingOutcome {
        let defaults = DaemonSettings()
        /// A byte size (`4K`, `8M`) in `range`.
        func setSize(_ setting: WritableKeyPath<DaemonSettings, Int>, in range: ClosedRange<Int>) -> DaemonSettingOutcome {
            if value.isEmpty {
                self[keyPath: setting] = defaults[keyPath: setting]
            } else if let bytes = Configuration.parseSize(value), range.contains(bytes) {
                self[keyPath: setting] = bytes
            } else {
                return .invalid(expectation: "a size from 4K to 1G (bytes, or with a K, M or G suffix)")
            }
            return .set
        }
        /// An absolute path.
        func setPath(_ setting: WritableKeyPath<DaemonSettings, String>) -> DaemonSettingOutcome {
            if value.isEmpty {
                self[keyPath: setting] = defaults[keyPath: setting]
            } else if value.hasPrefix("/") {
                self[keyPath: setting] = value
            } else {
                return .invalid(expectation: "an absolute path")
            }
            return .set
        }
        switch key {
        case "Socket":
            if value.isEmpty {
                socketPath = nil
            } else if !value.hasPrefix("/") || value.utf8.count > DaemonSettings.maximumSocketPathBytes {
                return .invalid(expectation: "an absolute path of at most \(DaemonSettings.maximumSocketPathBytes) bytes")
            } else {
                socketPath = value
            }
        case "LookupIPv4", "LookupIPv6":
            let family: AddressFamily = key == "LookupIPv4" ? .ipv4 : .ipv6
            let address: IPAddress
            if value.isEmpty {
                address = family == .ipv4 ? defaults.lookupIPv4 : defaults.lookupIPv6
            } else {
                guard let parsed = IPAddress(value), parsed.family == family else {
                    return .invalid(expectation: family == .ipv4 ? "an IPv4 address" : "an IPv6 address")
                }
                address = parsed
            }
            if family == .ipv4 { lookupIPv4 = address } else { lookupIPv6 = address }
        case "MaxClients":
            if value.isEmpty {
                maximumClients = defaults.maximumClients
                return .set
            }
            let range = DaemonSettings.maximumClientsRange
            guard let count = Int(value), range.contains(count) else {
                return .invalid(expectation: "a number from \(range.lowerBound) to \(range.upperBound)")
            }
            maximumClients = count
        case "ClientQueueLimit":
            return setSize(\.clientQueueLimitBytes, in: DaemonSettings.clientQueueLimitRange)
        case "ReceiveBuffer":
            return setSize(\.receiveBufferBytes, in: DaemonSettings.receiveBufferRange)
        case "ResolvConf":
            return setPath(\.resolvConfPath)
        case "UpstreamResolvConf":
            return setPath(\.upstreamResolvConfPath)
        case "LogLevel":
            if value.isEmpty {
                logLevel = defaults.logLevel
                return .set
            }
            guard let level = LogLevel(rawValue: value.lowercased()) else {
                return .invalid(expectation: LogLevel.allCases.map(\.rawValue).joined(separator: ", "))
            }
            logLevel = level
        default:
            return .unknownKey
        }
        return .set
    }
}
