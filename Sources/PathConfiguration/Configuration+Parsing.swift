// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathSettings

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
        var networkSections = 0
        /// Where each [Connectivity] key was last set, for the section's consistency check.
        var connectivityOrigins: [String: (file: String, line: Int)] = [:]
        for source in sources {
            let document = INIParser.parse(source.text, file: source.name)
            var log = DiagnosticLog(file: source.name)
            for section in document.sections {
                switch section.name {
                case DaemonSettings.sectionName:
                    for entry in section.entries { apply(entry, to: &configuration.daemon, log: &log) }
                case InterfaceSettings.sectionName:
                    configuration.policy.rules += rule(section, of: source, &interfaceSections,
                                                       maximum: maximumInterfaceSections, log: &log)
                case NetworkSettings.sectionName:
                    configuration.policy.networks += rule(section, of: source, &networkSections,
                                                          maximum: maximumNetworkSections, log: &log)
                case ConnectivitySettings.sectionName:
                    for entry in section.entries {
                        if apply(entry, to: &configuration.connectivity, log: &log) {
                            connectivityOrigins[entry.key] = (source.name, entry.line)
                        }
                    }
                case WatchSettings.sectionName:
                    for entry in section.entries { apply(entry, to: &configuration.watch, log: &log) }
                default:
                    let hint = sectionNames.first { $0.lowercased() == section.name.lowercased() }
                    log.warning(line: section.line, "unknown section [\(section.name)]"
                        + (hint.map { " (did you mean [\($0)]?)" } ?? "") + "; ignored")
                }
            }
            diagnostics += (document.diagnostics + log.finished).sorted {
                ($0.line == 0 ? Int.max : $0.line) < ($1.line == 0 ? Int.max : $1.line)
            }
        }
        // Across all files: a drop-in may complete what the main file began.
        if let (keys, message) = configuration.connectivity.inconsistency {
            // Where the first key the message names was written.
            let origin = keys.lazy.compactMap { connectivityOrigins[$0] }.first
                ?? (sources.last?.name ?? "", 0)
            diagnostics.append(ConfigurationDiagnostic(.error, file: origin.file, line: origin.line, message))
        }
        return ConfigurationResult(configuration: configuration, diagnostics: diagnostics)
    }

    static let sectionNames = [DaemonSettings.sectionName, InterfaceSettings.sectionName, NetworkSettings.sectionName,
                               ConnectivitySettings.sectionName, WatchSettings.sectionName]

    /// One more of a section that may repeat (`[Interface]`, `[Network]`), parsed, while
    /// there are at most `maximum`; none past it, and the first past it is an error
    /// (once: the configuration is invalid already).
    private static func rule<Rule: RepeatedSection>(_ section: INIDocument.Section, of source: ConfigurationSource,
                                                    _ count: inout Int, maximum: Int,
                                                    log: inout DiagnosticLog) -> [Rule] {
        count += 1
        if count == maximum + 1 { log.error(line: section.line, "more than \(maximum) [\(section.name)] sections") }
        guard count <= maximum else { return [] }
        var rule = Rule(origin: "\(source.name):\(section.line)")
        for entry in section.entries { apply(entry, to: &rule, log: &log) }
        return [rule]
    }

    /// Sets one key of a section from its entry, logging what is wrong; returns whether it was set.
    @discardableResult
    private static func apply<Section: ConfigurationSection>(_ entry: INIDocument.Entry, to settings: inout Section,
                                                            log: inout DiagnosticLog) -> Bool {
        switch settings.set(entry.key, to: entry.value) {
        case .set:
            return true
        case .invalid(let expectation):
            log.error(line: entry.line, "\(entry.key)= expects \(expectation), got \(SettingText.quoted(entry.value))")
        case .refused(let message):
            log.error(line: entry.line, message)
        case .unknownKey:
            unknownKey(entry, section: Section.sectionName, known: Section.keys.map(\.name), log: &log)
        }
        return false
    }

    private static func unknownKey(_ entry: INIDocument.Entry, section: String, known: [String],
                                   log: inout DiagnosticLog) {
        let hint = known.first { $0.lowercased() == entry.key.lowercased() }
        log.warning(line: entry.line, "unknown key \(entry.key)= in [\(section)]"
            + (hint.map { " (did you mean \($0)=?)" } ?? "") + "; ignored")
    }
}
