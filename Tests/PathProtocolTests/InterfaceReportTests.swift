// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import PathConfiguration
import PathProtocol
import Testing

/// `InterfaceReport`: the derivation from a snapshot and a policy, and its wire form.
@Suite("interface report")
struct InterfaceReportTests {
    static let index = InterfaceIndex(rawValue: 2)

    static func link(flags: LinkFlags, operState: OperState, type: InterfaceType = .wiredEthernet) -> Link {
        Link(index: index, name: "eth0", flags: flags, operState: operState, hardwareType: .ether, type: type)
    }

    static func address(_ text: String, flags: AddressFlags = [], scope: AddressScope = .universe) -> InterfaceAddress {
        InterfaceAddress(interface: index, address: Fixture.ip(text), prefixLength: 24, flags: flags, scope: scope)
    }

    static func report(_ link: Link, _ addresses: [InterfaceAddress], policy: Policy = .standard) -> InterfaceReport {
        let snapshot = Snapshot(events: [.linkChanged(link)] + addresses.map { .addressChanged($0) })
        return InterfaceReport.report(for: link, in: snapshot, policy: policy)
    }

    @Test("the first reason that applies is the one reported", arguments: [
        (link(flags: [.up, .running, .lowerUp], operState: .up), [address("192.0.2.2")], nil),
        // tun and WireGuard stay UNKNOWN while working.
        (link(flags: [.up, .running, .lowerUp], operState: .unknown, type: .other), [address("192.0.2.2")], nil),
        (link(flags: [], operState: .down), [address("192.0.2.2")], InterfaceReport.UnusableReason.adminDown),
        (link(flags: [.up], operState: .lowerLayerDown), [address("192.0.2.2")], .noCarrier),
        (link(flags: [.up, .dormant], operState: .dormant), [address("192.0.2.2")], .dormant),
        (link(flags: [.up, .running, .lowerUp], operState: .up), [], .noUsableAddress),
        (link(flags: [.up, .running, .lowerUp], operState: .up), [address("2001:db8::2", flags: .tentative)],
         .noUsableAddress),
        (link(flags: [.up, .running, .lowerUp], operState: .up),
         [address("2001:db8::2", flags: [.tentative, .dadFailed])],
         .noUsableAddress),
        (link(flags: [.up, .running, .lowerUp], operState: .up), [address("fe80::2", scope: .link)], .noUsableAddress),
        // Optimistic DAD: the kernel sources traffic from it while DAD runs.
        (link(flags: [.up, .running, .lowerUp], operState: .up),
         [address("2001:db8::2", flags: [.tentative, .optimistic])], nil),
        // The kernel has no IPv4 DAD: an IPv4 address's flags do not keep it from being a source.
        (link(flags: [.up, .running, .lowerUp], operState: .up), [address("192.0.2.2", flags: .tentative)], nil),
        // IPv4 link-local counts only where a link-scope route would use it; there is no route here.
        (link(flags: [.up, .running, .lowerUp], operState: .up), [address("169.254.7.2", scope: .link)],
         .noUsableAddress),
        // Deprecated is usable, just not preferred.
        (link(flags: [.up, .running, .lowerUp], operState: .up), [address("192.0.2.2", flags: .deprecated)], nil),
        // Admin down outranks the missing address: the first thing to fix.
        (link(flags: [], operState: .down), [], .adminDown),
        (link(flags: [.up, .running, .loopback], operState: .unknown, type: .loopback),
         [address("127.0.0.1", scope: .host)],
         .loopback),
    ])
    func reason(link: Link, addresses: [InterfaceAddress], expected: InterfaceReport.UnusableReason?) {
        let report = Self.report(link, addresses)
        #expect(report.unusableReason == expected)
        #expect(report.isUsable == (expected == nil))
        #expect(report.addresses.count == addresses.count)
    }

    @Test("cost comes from the policy, by type")
    func costFromPolicy() {
        let modem = Self.link(flags: [.up, .running], operState: .up, type: .cellular)
        let report = Self.report(modem, [Self.address("100.64.0.2")])
        #expect(report.type == .cellular)
        #expect(report.isExpensive)
        #expect(!report.isConstrained)
        let constrained = Self.report(Self.link(flags: [.up], operState: .up), [],
                                      policy: Policy(expensiveTypes: [], constrainedTypes: [.wiredEthernet]))
        #expect(!constrained.isExpensive)
        #expect(constrained.isConstrained)
    }

    @Test("configuration rules: SetType= gives the effective type and its cost, Ignore= is a reason of its own")
    func configurationRules() {
        var usbPhone = InterfaceMatch()
        usbPhone.name.append("usb*")
        let policy = Policy(rules: [InterfaceSettings(match: usbPhone, stated: .init(setType: .cellular))])
        var usb0 = Self.link(flags: [.up, .running, .lowerUp], operState: .up)
        usb0.name = "usb0"
        let tethered = Self.report(usb0, [Self.address("192.0.2.2")], policy: policy)
        #expect(tethered.type == .cellular)
        #expect(tethered.isExpensive, "SetType=cellular takes cellular's default cost")
        #expect(tethered.isUsable)

        var everything = InterfaceMatch()
        everything.name.append("*")
        let ignoring = Policy(rules: [InterfaceSettings(match: everything, stated: .init(isIgnored: true))])
        // Ignore= outranks every other reason: it is why the link never counts.
        let ignored = Self.report(Self.link(flags: [], operState: .down), [], policy: ignoring)
        #expect(ignored.unusableReason == .ignored)
    }

    @Test("reports come in index order, one per link")
    func allLinksInIndexOrder() {
        let eth0 = Self.link(flags: [.up, .running], operState: .up)
        let lo = Link(index: InterfaceIndex(rawValue: 1), name: "lo", flags: [.up, .running, .loopback],
                      operState: .unknown, hardwareType: .loopback, type: .loopback)
        let snapshot = Snapshot(events: [.linkChanged(eth0), .linkChanged(lo)])
        #expect(InterfaceReport.reports(for: snapshot, policy: .standard).map(\.name) == ["lo", "eth0"])
    }

    @Test("unknown flag names and reasons from a newer daemon are kept or skipped, not fatal")
    func decodingIsTolerant() throws {
        let line = #"{"type":"interfaces","generation":2,"interfaces":[{"name":"x","index":9,"type":"other","# +
                   #""kind":"vxlan","#
            + #""operstate":"up","flags":["up","echo"],"addresses":[{"address":"192.0.2.9","prefixLength":24,"#
            + #""family":"ipv4","flags":["managetempaddr"],"scope":"77"}],"isExpensive":false,"isConstrained":false,"#
            + #""usable":false,"why":"quarantined","futureField":1}]}"#
        guard case .interfaces(_, let reports, nil) = try ServerMessage.decode(line: Fixture.bytes(line)) else {
            Issue.record("expected an interfaces message")
            return
        }
        let report = try #require(reports.first)
        #expect(report.flags == [.up])
        #expect(report.kind == "vxlan")
        #expect(report.addresses.first?.flags == [])
        #expect(report.addresses.first?.scope == AddressScope(rawValue: 77))
        #expect(report.unusableReason?.rawValue == "quarantined")
    }

    @Test("a type or operstate this version does not know is kept as unrecognized, or read as IF_OPER_UNKNOWN")
    func unknownTypeAndOperState() throws {
        let line = #"{"type":"interfaces","generation":1,"interfaces":[{"name":"x","index":1,"type":"rocket","# +
                   #""operstate":"sleepy"}]}"#
        guard case .interfaces(_, let reports, nil) = try ServerMessage.decode(line: Fixture.bytes(line)) else {
            Issue.record("expected an interfaces message")
            return
        }
        #expect(reports.map(\.type) == [.unrecognized("rocket")])
        #expect(reports.map(\.operState) == [.unknown])
    }

    @Test("a malformed interfaces line is an error", arguments: [
        #"{"type":"interfaces","generation":1}"#,
        #"{"type":"interfaces","generation":1,"interfaces":[{"name":"x","index":1,"type":"other"}]}"#,
        #"{"type":"interfaces","generation":1,"interfaces":[{"name":"x","index":1,"type":"other","operstate":"up","# +
        #""addresses":[{"address":"nope","prefixLength":1,"scope":"global"}]}]}"#,
    ])
    func malformed(_ text: String) {
        #expect(throws: MessageDecodingError.self) { try ServerMessage.decode(line: Fixture.bytes(text)) }
    }
}
