// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol

/// What `wait`, `status`, `run` and `hold` ask of a path beyond being satisfied: `--ipv4` / `-4`,
/// `--ipv6` / `-6` and `--dns` as systemd-networkd-wait-online(8) has them, and
/// `--internet`, the connectivity check's `full` (pathctl(1)).
struct PathRequirements: OptionSet, Hashable, Sendable {
    let rawValue: UInt8

    static let ipv4 = PathRequirements(rawValue: 1 << 0)
    static let ipv6 = PathRequirements(rawValue: 1 << 1)
    static let dns = PathRequirements(rawValue: 1 << 2)
    static let internet = PathRequirements(rawValue: 1 << 3)

    /// Each requirement: its option, its name in messages and whether an update meets
    /// it, in the order all three are listed.
    static let options: [(option: CommandOption, requirement: PathRequirements, name: String,
                          isMet: @Sendable (PathUpdate) -> Bool)] = [
        (CommandOption(OptionSpec("--ipv4", short: "-4", help: """
            status, wait, run, hold: the path must also carry
            IPv4 (route, interface and source address); status
            then exits 1 without it
            """), brief: "the path must also carry IPv4"), .ipv4, "IPv4", { $0.path.supportsIPv4 }),
        (CommandOption(OptionSpec("--ipv6", short: "-6", help: """
            status, wait, run, hold: likewise for IPv6 (status
            then exits 1 without it)
            """), brief: "the path must also carry IPv6"), .ipv6, "IPv6", { $0.path.supportsIPv6 }),
        (CommandOption(OptionSpec("--dns", help: """
            status, wait, run, hold: the resolver configuration
            must also name a nameserver (status then exits 1
            without one)
            """), brief: "the resolver configuration must name a nameserver"), .dns, "DNS",
         { $0.path.supportsDNS }),
        (CommandOption(OptionSpec("--internet", help: """
            status, wait, run, hold: the connectivity check must
            also have found full Internet access (needs
            pathd-probe; status then exits 1 without it)
            """), brief: "the connectivity check must have found full Internet access"), .internet,
         "full Internet access", { $0.connectivity.state == .full }),
    ]

    /// nil when `update`'s path is satisfied and meets every requirement; else why not, for
    /// a person: "the path is not satisfied: …" or "the path has no IPv6: satisfied via
    /// eth0 (IPv4, DNS)".
    func unmet(by update: PathUpdate) -> String? {
        guard update.path.status == .satisfied else {
            return "the path is not satisfied: \(PathFormatting.headline(update))"
        }
        let missing = Self.options.filter { contains($0.requirement) && !$0.isMet(update) }
        guard !missing.isEmpty else { return nil }
        return "the path has no \(listedInWords(missing.map(\.name))): \(PathFormatting.headline(update))"
    }

    /// "a satisfied path", or "a satisfied path with IPv6 and DNS".
    var goal: String {
        let names = Self.options.filter { contains($0.requirement) }.map(\.name)
        return names.isEmpty ? "a satisfied path" : "a satisfied path with \(listedInWords(names))"
    }
}

extension PathRequirements {
    /// The requirements a command line gives.
    init(given line: ParsedCommandLine) {
        self = []
        for (option, requirement, _, _) in Self.options where line.has(option) { insert(requirement) }
    }
}
