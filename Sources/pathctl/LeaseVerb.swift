// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol

/// `pathctl lease INTERFACE`: tell pathd a DHCP lease's facts (or that it ended), the
/// `reportLease` request. What the DHCP clients' hooks shipped with pathd run
/// (packaging/hooks: dhclient's exit hook, dhcpcd's hook), as root. The hooks pass every
/// option as the client prints it, empty where the lease lacks it, so an empty value is
/// no value; a domain or captive portal that pathd would refuse is left out with a
/// warning, so that one odd value from a DHCP server does not lose the lease's other
/// facts. Silent on success (exit 0); pathd's refusal is exit 4, no pathd exit 3.
struct LeaseVerb: Verb, Equatable {
    static let family = CommandOption(OptionSpec("--family", value: "FAMILY", help: """
        lease: ipv4 (DHCPv4, the default) or ipv6 (DHCPv6)
        """), brief: "the lease's address family", completion: .words(AddressFamily.allCases.map(\.rawValue)))
    static let address = CommandOption(OptionSpec("--address", value: "ADDRESS", help: """
        lease: the leased address (forgotten when the link
        loses it)
        """), brief: "the leased address")
    static let server = CommandOption(OptionSpec("--server", value: "ID", help: """
        lease: the server identifier (DHCPv4: an address;
        DHCPv6: the DUID in hexadecimal)
        """), brief: "the DHCP server's identifier")
    static let domain = CommandOption(OptionSpec("--domain", value: "NAMES", repeatable: true, help: """
        lease: domain names the lease gives (domain name,
        search list), separated by spaces (repeatable)
        """), brief: "domain names the lease gives")
    static let vendorOption = CommandOption(OptionSpec("--vendor-option", value: "TEXT", help: """
        lease: DHCP option 43 as the client prints it
        (ANDROID_METERED makes the network expensive)
        """), brief: "DHCP option 43 as the client prints it")
    static let captivePortal = CommandOption(OptionSpec("--captive-portal", value: "URI", help: """
        lease: the captive portal's URI (option 114)
        """), brief: "the captive portal's URI")
    static let ended = CommandOption(OptionSpec("--ended", help: """
        lease: the lease of FAMILY ended; pathd forgets it
        """), brief: "the lease ended")
    static let factOptions = [address, server, domain, vendorOption, captivePortal]
    static let command = CommandSpec<any Verb.Type>(
        "lease", summary: "tell pathd about a DHCP lease (for DHCP clients' hooks)",
        options: [family] + factOptions + [ended],
        operands: CommandOperands("INTERFACE", description: "the link the lease is on", single: true),
        action: Self.self)

    var interface: String
    var report: LeaseReport
    /// What was left out of the lease, for stderr.
    var warnings: [String] = []

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        // One, the table has checked.
        guard let interface = operands.first else { throw UsageError("lease needs an INTERFACE") }
        guard RouteZone.isValid(interface) else { throw UsageError("lease: \"\(interface)\" is no interface name") }
        self.interface = interface
        /// A value the hook passed; nil when empty, as for a fact the lease lacks.
        func given(_ option: CommandOption) -> String? {
            line.value(option).flatMap { $0.isEmpty ? nil : $0 }
        }
        let family = try given(Self.family).map { text throws(UsageError) in
            try OptionValue.choice(text, for: Self.family.name,
                                   among: AddressFamily.allCases.map { ($0.rawValue, $0) })
        } ?? .ipv4
        if line.has(Self.ended) {
            if let fact = Self.factOptions.first(where: { !line.values($0).allSatisfy(\.isEmpty) }) {
                throw UsageError("\(Self.ended.name) and \(fact.name) contradict each other: "
                    + "an ended lease has no facts")
            }
            report = .ended(family)
            return
        }
        var lease = DHCPLease(family: family)
        if let text = given(Self.address) {
            guard let address = IPAddress(text), address.family == family else {
                throw UsageError("\(Self.address.name) expects an \(family.rawValue) address, got \"\(text)\"")
            }
            lease.address = address
        }
        if let text = given(Self.server) {
            if let refusal = DHCPLease.serverRefusal(text, family: family) {
                throw UsageError("\(Self.server.name): \(refusal), got \"\(text)\"")
            }
            lease.server = text
        }
        for word in line.values(Self.domain).flatMap({ $0.split(separator: " ") }) {
            guard let name = DomainName.canonical(word) else {
                warnings.append("left out \"\(word)\": not a domain name")
                continue
            }
            guard !lease.hints.dnsDomains.contains(name) else { continue }
            guard lease.hints.dnsDomains.count < NetworkHints.maximumDomains else {
                warnings.append("left out \(name): pathd takes \(NetworkHints.maximumDomains) domains of a lease")
                continue
            }
            lease.hints.dnsDomains.append(name)
        }
        if let text = given(Self.vendorOption) { lease.hints.names = NetworkHint.inVendorOption(text) }
        if let text = given(Self.captivePortal) {
            switch CaptivePortalURI.read(text) {
            case .portal(let uri): lease.hints.captivePortal = uri
            case .none: break
            case .refused(let why): warnings.append("left out the captive portal: \(why)")
            }
        }
        report = .bound(lease)
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        for warning in warnings { writeErrorLine("warning: lease on \(interface): \(warning)", level: .warning) }
        return try converse(global, Request(.reportLease(interface: interface, report))) { message, line in
            if case .error = message {
                if global.json { echo(line) }
                return nil
            }
            guard case .reported = message else { return nil }
            if global.json { echo(line) }
            return .success
        }
    }
}
