// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathSettings

extension Configuration {
    /// The configuration in the INI form it was read in: every `[Daemon]` key with its
    /// effective value, then each `[Interface]` section with the keys it states, headed
    /// by a comment naming its file and line. Parsing this text gives the same
    /// configuration back. Lines in `header` are written first, as comments.
    public func renderedINI(header: [String] = []) -> String {
        var lines = header.map { "# " + $0 }
        if !lines.isEmpty { lines.append("") }
        let settings = daemon
        lines.append("[Daemon]")
        for key in DaemonSettings.keys {
            let value = key.render(settings)
            lines.append("\(key.name)=" + value)
            if value.isEmpty, let meaning = key.emptyMeaning { lines.append("# (empty: \(meaning))") }
        }
        let defaults = [("expensive", policy.expensiveTypes), ("constrained", policy.constrainedTypes)]
        for (flag, types) in defaults where !types.isEmpty {
            let names = types.map(\.rawValue).sorted().joined(separator: ", ")
            lines.append("")
            lines.append("# Built in: interfaces of type \(names) (detected, or set by SetType=) are \(flag)")
            lines.append("# unless a matching [Interface] section says otherwise.")
        }
        for rule in policy.rules {
            lines.append("")
            lines.append("[Interface]")
            if !rule.origin.isEmpty { lines.append("# \(rule.origin)") }
            lines += rule.renderedLines
        }
        for rule in policy.networks {
            lines.append("")
            lines.append("[Network]")
            if !rule.origin.isEmpty { lines.append("# \(rule.origin)") }
            lines += rule.renderedLines
        }
        lines.append("")
        lines.append("[Connectivity]")
        if !connectivity.isEnabled { lines.append("# (no URL: no connectivity check is made)") }
        lines += connectivity.renderedLines
        lines.append("")
        lines.append("[Watch]")
        if watch.destinations.isEmpty { lines.append("# (no Destination=: pathd watches no route of its own accord)") }
        lines += watch.renderedLines
        return lines.joined(separator: "\n") + "\n"
    }
}
