// SPDX-License-Identifier: Apache-2.0
@testable import pathctl
import PathModel
import PathProtocol
import Testing

/// `pathctl networks`' report (`NetworksVerb.report`): the networks seen, and the
/// `[Network]` section for the path's network, whose `Name=` pathd.conf(5) takes.
@Suite("pathctl networks: the table and the section to paste")
struct NetworksReportTests {
    static let id = NetworkID("3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5")!
    static let facts = NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [LinkLayerAddress("02:00:00:00:00:01")!])

    static func path(on network: LinkNetwork, interface: String = "wlan0", isExpensive: Bool = false) -> Path {
        Path(status: .satisfied, availableInterfaces: [
            Interface(name: interface, index: InterfaceIndex(rawValue: 3), type: .wifi, network: network),
        ], isExpensive: isExpensive, supportsIPv4: true)
    }

    static func seen(name: String? = nil, domains: [String] = []) -> SeenNetwork {
        SeenNetwork(id: id, name: name, facts: facts, interfaces: ["wlan0"], domains: domains,
                    firstSeen: .seconds(1_796_150_000), lastSeen: .seconds(1_796_160_000), isCurrent: true)
    }

    static func report(_ networks: [SeenNetwork], path: Path) -> String {
        NetworksVerb.report(networks, capacity: 256, persistence: .persistent, path: path,
                            now: Timestamp(wall: .seconds(1_796_160_000), monotonic: .seconds(100)), calendar: .utc)
    }

    @Test("an unnamed network: a section with its ID, a name from its search domain, its cost, its facts")
    func unnamedNetwork() {
        let network = LinkNetwork(state: .identified, id: Self.id, anchor: .gatewayMAC)
        let text = Self.report([Self.seen(domains: ["home.example"])], path: Self.path(on: network, isExpensive: true))
        #expect(text.hasSuffix("""
            To name it, add this to /etc/pathd/pathd.conf (pathd.conf(5), [Network]) and run pathctl reload:

            [Network]
            # gateway MAC 02:00:00:00:00:01, domains home.example
            ID=\(Self.id)
            Name=home
            Expensive=yes

            """), "\(text)")
        #expect(text.contains("1 network listed (pathd keeps the 256 seen last, across restarts)."), "\(text)")
    }

    @Test("a named network keeps its name in the section")
    func namedNetwork() {
        let network = LinkNetwork(state: .identified, id: Self.id, name: "office", anchor: .gatewayMAC)
        let text = Self.report([Self.seen(name: "office", domains: ["home.example"])], path: Self.path(on: network))
        #expect(text.contains("To change what pathd says of it,"), "\(text)")
        #expect(text.contains("\nName=office\nExpensive=no\n"), "\(text)")
    }

    @Test("a network not identified yet gets no section, and says why")
    func pendingNetwork() {
        let text = Self.report([], path: Self.path(on: LinkNetwork(state: .pending, anchor: .gatewayMAC)))
        #expect(text.hasSuffix("The path's network on wlan0 is pending: no [Network] section can name it until it "
            + "is identified (pathctl status shows when).\n"), "\(text)")
        #expect(!text.contains("[Network]\n"))
    }

    /// Every suggestion is a name pathd.conf(5) takes: a domain label or a link name it
    /// refuses (non-ASCII, too long, a character outside the set) falls back.
    @Test("the suggested Name= is always one pathd.conf takes", arguments: [
        (["home.example"], "wlan0", "home"),
        (["1und1.example"], "wlan0", "1und1"),
        (["bücher.example"], "wlan0", "wlan0-3f2a91"),
        ([String(repeating: "a", count: 300) + ".example"], "wlan0", "wlan0-3f2a91"),
        ([], "enx00e04c680001", "enx00e04c680001-3f2a91"),
        ([], "wl@n0", "network-3f2a91"),
        ([], "-tap0", "network-3f2a91"),
    ])
    func suggestedName(domains: [String], interface: String, expected: String) {
        let name = NetworksVerb.suggestedName(for: Self.seen(domains: domains), id: Self.id, interface: interface)
        #expect(name == expected)
        #expect(LinkNetwork.isValidName(name))
    }
}
