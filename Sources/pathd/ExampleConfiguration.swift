// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathConfiguration

/// `pathd --print-example-config`: packaging/pathd.conf, written from the key tables so a
/// new key reaches the shipped example without editing it (`make generate`; a test
/// holds the checked-in file to this output). Every key is commented out with its default.
enum ExampleConfiguration {
    static var text: String {
        var lines = preamble
        lines += [""] + section(DaemonSettings.self, live: true, notesRestart: true)
        lines += [""] + interfacePreamble + section(InterfaceSettings.self, live: false, notesRestart: false)
        lines += [""] + networkPreamble + section(NetworkSettings.self, live: false, notesRestart: false)
        lines += [""] + connectivityPreamble + section(ConnectivitySettings.self, live: false, notesRestart: false)
        lines += [""] + watchPreamble + section(WatchSettings.self, live: false, notesRestart: false)
        return lines.joined(separator: "\n") + "\n"
    }

    private static let preamble = [
        "# /etc/pathd/pathd.conf: settings and interface policy of pathd(8).",
        "#",
        "# Every key is shown commented out with its default: this file as shipped changes",
        "# nothing. Uncomment and edit a line to change a setting, or better, put your changes",
        "# in a drop-in, /etc/pathd/pathd.conf.d/NAME.conf, which a package upgrade never",
        "# touches. Check with `pathd --check-config`, apply with `systemctl reload pathd`.",
        "# Every key is described in pathd.conf(5).",
    ]

    private static let interfacePreamble = [
        "# Any number of [Interface] sections: a match (all its match keys must admit the",
        "# interface; none matches every interface) and settings. Empty values are the",
        "# defaults, shown here; each match key takes space-separated shell globs, \"!\"",
        "# excluding. For example, Name=usb* enx* and SetType=cellular for tethered phones.",
    ]

    private static let networkPreamble = [
        "# Any number of [Network] sections: a match (every match key given must match the",
        "# network a link is on, one of its values; the first section that matches names it)",
        "# and settings, which win over [Interface]'s. `pathctl status` shows a network's ID;",
        "# `sudo pathctl interfaces` its gateway's MAC. For example, a phone's hotspot:",
        "#   GatewayMAC=aa:bb:cc:dd:ee:ff",
        "#   Name=hotspot",
        "#   Expensive=yes",
    ]

    private static let connectivityPreamble = [
        "# What pathd-probe(8) checks and pathd accepts reports about. No URL: no check,",
        "# nothing is contacted. Use a server you control, serving known content; e.g.",
        "#   URL=http://check.example.org/pathd-check",
        "#   ExpectedContent=pathd-ok\\n",
        "# after `printf 'pathd-ok\\n' > /var/www/html/pathd-check` on that server.",
    ]

    private static let watchPreamble = [
        "# The hosts whose route pathd follows and exports as pathd_route_* metrics, e.g.",
        "#   Destination=registry.example.org 192.0.2.10 vpn.example.org",
        "# Names are resolved with the system resolver, again on reload and path changes.",
    ]

    /// The section's heading (commented out unless `live`), then each key: its summary
    /// and bounds as a comment, and `#Key=default`. Only `[Daemon]` keys can need a
    /// restart; the other sections are applied whole by a reload.
    private static func section<Section: ConfigurationSection>(_ section: Section.Type, live: Bool,
                                                               notesRestart: Bool) -> [String] {
        var lines = [(live ? "" : "#") + "[\(Section.sectionName)]"]
        for key in Section.keys {
            // "the Unix socket" is capitalized, "systemd-resolved's" is a name and is not.
            let firstWord = key.summary.prefix { $0 != " " }
            var text = firstWord.allSatisfy(\.isLetter)
                ? key.summary.prefix(1).uppercased() + key.summary.dropFirst() : key.summary
            // Numbers need their bounds, choices their names and texts their form; paths,
            // addresses, globs, flags and URLs say what they take in the summary.
            if let range = key.range {
                if [.count, .size, .span].contains(key.kind) { text += ", \(range)" }
                if [.level, .types, .type, .text, .hex].contains(key.kind) { text += ": \(range)" }
            }
            text += "."
            if let note = key.note { text += " " + note }
            if notesRestart && !key.isReloadable { text += " Needs a restart." }
            // At most 86 columns, so each comment line fits in 88.
            lines += wordWrapped(text, width: 86).map { "# " + $0 }
            lines.append("#\(key.name)=\(key.documentedDefault)")
        }
        return lines
    }
}
