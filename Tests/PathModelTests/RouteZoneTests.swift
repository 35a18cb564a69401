// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathTestFixtures
import Testing

private typealias F = Fixture

/// The zone of a link-local destination ("fe80::1%eth0"): read, checked, and resolved
/// to a link as getaddrinfo(3) resolves it.
@Suite("route zones")
struct RouteZoneTests {
    @Test("an address with or without a zone is split; anything else is no address", arguments: [
        ("fe80::1%eth0", "fe80::1", "eth0"), ("fe80::1%2", "fe80::1", "2"), ("ff02::1%wlp0s20f3", "ff02::1",
                                                                             "wlp0s20f3"),
        ("198.51.100.7", "198.51.100.7", nil), ("2001:db8::1%eth0", "2001:db8::1", "eth0"),
    ] as [(String, String, String?)])
    func splits(text: String, address: String, zone: String?) throws {
        let split = try #require(RouteZone.split(text))
        #expect(split.address == F.ip(address))
        #expect(split.zone == zone)
    }

    @Test("no address before the %, or a zone that cannot name an interface", arguments: [
        "fe80::1%", "%eth0", "example.org%eth0", "fe80::1%a/b", "fe80::1%eth 0", "fe80::1%sixteen-bytes-xx",
        "fe80::1%..", "fe80::1%a:b", "fe80::1%eth0\n",
    ])
    func refusesBrokenText(text: String) {
        #expect(RouteZone.split(text) == nil)
    }

    @Test("only a link-local IPv6 destination takes a zone")
    func whereAZoneApplies() {
        for text in ["fe80::1", "ff02::1", "ff01::2",
                     "ff32::1"] { #expect(RouteZone.refusal(zoning: F.ip(text)) == nil) }
        for text in ["2001:db8::1", "ff05::1", "169.254.1.1", "224.0.0.1", "::ffff:169.254.1.1"] {
            #expect(RouteZone.refusal(zoning: F.ip(text))?.contains("the routes choose the interface for \(text)")
                    == true)
        }
    }

    @Test("a zone names a link by name first, then by index")
    func resolvesLinks() {
        let two = Link(index: InterfaceIndex(rawValue: 7), name: "2", flags: [], operState: .up, hardwareType: .ether,
                       type: .wiredEthernet)
        let snapshot = Snapshot(events: [.linkChanged(F.lo), .linkChanged(F.eth0()), .linkChanged(two)])
        #expect(snapshot.link(zone: "eth0")?.index == F.ethIndex)
        #expect(snapshot.link(zone: "1")?.name == "lo")
        #expect(snapshot.link(zone: "2")?.index == InterfaceIndex(rawValue: 7), "the name \"2\" wins over index 2")
        #expect(snapshot.link(zone: "7")?.name == "2")
        #expect(snapshot.link(zone: "wlan0") == nil)
        #expect(snapshot.link(zone: "99") == nil)
        #expect(snapshot.link(zone: "+2") == nil)
    }
}
