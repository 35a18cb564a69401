// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import Testing

private typealias F = Fixture

@Suite("Snapshot")
struct SnapshotTests {
    @Test func addressAddThenRemoveLeavesNoTrace() {
        let base = Snapshot(events: [.linkChanged(F.eth0())])
        var snapshot = base
        let address = F.address("192.0.2.10")
        snapshot.apply(.addressChanged(address))
        #expect(snapshot.addresses(of: F.ethIndex) == [address])
        #expect(snapshot.hasUsableAddress(F.ethIndex, family: .ipv4))
        #expect(!snapshot.hasUsableAddress(F.ethIndex, family: .ipv6))
        snapshot.apply(.addressRemoved(address.key))
        #expect(snapshot.addresses(of: F.ethIndex).isEmpty)
        #expect(!snapshot.hasUsableAddress(F.ethIndex, family: .ipv4))
        #expect(snapshot == base)
    }

    @Test func newAddrForTheSameKeyReplacesTheAddress() {
        var snapshot = Snapshot(events: [F.added("2001:db8::10", flags: .tentative)])
        #expect(!snapshot.hasUsableAddress(F.ethIndex, family: .ipv6))
        snapshot.apply(F.added("2001:db8::10"))
        #expect(snapshot.addresses(of: F.ethIndex).count == 1)
        #expect(snapshot.addresses(of: F.ethIndex).first?.flags == [])
        #expect(snapshot.hasUsableAddress(F.ethIndex, family: .ipv6))
    }

    @Test func samAddressWithAnotherPrefixIsAnotherAddress() {
        let snapshot = Snapshot(events: [
            .addressChanged(F.address("192.0.2.10", prefix: 24)), .addressChanged(F.address("192.0.2.10", prefix: 32)),
        ])
        #expect(snapshot.addresses(of: F.ethIndex).map(\.prefixLength).sorted() == [24, 32])
        var removed = snapshot
        removed.apply(.addressRemoved(F.address("192.0.2.10", prefix: 32).key))
        #expect(removed.addresses(of: F.ethIndex).map(\.prefixLength) == [24])
    }

    @Test func linkRemovalDropsItsAddresses() {
        var snapshot = Snapshot(events: [
            .linkChanged(F.eth0()), .linkChanged(F.wlan0()),
            F.added("192.0.2.10"), F.added("2001:db8::10"), F.added("198.51.100.7", on: F.wlanIndex),
        ])
        snapshot.apply(.linkRemoved(F.ethIndex))
        #expect(snapshot.links[F.ethIndex] == nil)
        #expect(snapshot.addresses(of: F.ethIndex).isEmpty)
        #expect(snapshot.addresses[F.ethIndex] == nil)
        #expect(snapshot.addresses(of: F.wlanIndex).map(\.address) == [F.ip("198.51.100.7")])
        // A link reappearing with the same index does not bring stale addresses back.
        snapshot.apply(.linkChanged(F.eth0()))
        #expect(!snapshot.hasUsableAddress(F.ethIndex, family: .ipv4))
        #expect(!snapshot.hasUsableAddress(F.ethIndex, family: .ipv6))
    }

    @Test func delAddrOfAnUnknownKeyIsHarmless() {
        let base = Snapshot(events: [.linkChanged(F.eth0()), F.added("192.0.2.10")])
        var snapshot = base
        snapshot.apply(.addressRemoved(F.address("192.0.2.11").key))
        snapshot.apply(.addressRemoved(F.address("192.0.2.10", prefix: 25).key))
        snapshot.apply(.addressRemoved(F.address("10.0.0.1", on: InterfaceIndex(rawValue: 42)).key))
        #expect(snapshot == base)
        var empty = Snapshot()
        empty.apply(.addressRemoved(F.address("192.0.2.10").key))
        empty.apply(.linkRemoved(F.ethIndex))
        #expect(empty == Snapshot())
    }

    @Test func addressesAreOrderedIPv4FirstThenByText() {
        let snapshot = Snapshot(events: [
            F.added("2001:db8::2"), F.added("192.0.2.20"), F.added("2001:db8::1"), F.added("192.0.2.10"),
        ])
        #expect(snapshot.addresses(of: F.ethIndex).map(\.address.description)
            == ["192.0.2.10", "192.0.2.20", "2001:db8::1", "2001:db8::2"])
    }

    @Test func sortedLinksAreInIndexOrder() {
        let snapshot = Snapshot(events: [.linkChanged(F.wg0()), .linkChanged(F.eth0()), .linkChanged(F.lo)])
        #expect(snapshot.sortedLinks.map(\.name) == ["lo", "eth0", "wg0"])
    }

    @Test func linkChangedReplacesTheLink() {
        var snapshot = Snapshot(events: [.linkChanged(F.eth0())])
        snapshot.apply(.linkChanged(F.eth0(flags: [.up], operState: .down)))
        #expect(snapshot.links.count == 1)
        #expect(snapshot.links[F.ethIndex]?.linkState == .noCarrier)
    }

    @Test func lookupsAreReplacedByTheLatestEvent() {
        var snapshot = Snapshot(events: [F.lookup(.ipv4, .noRoute)])
        #expect(snapshot.lookups[.ipv4] == .noRoute)
        #expect(snapshot.lookups[.ipv6] == nil)
        snapshot.apply(F.lookup(.ipv4, .rejected(.blackhole)))
        #expect(snapshot.lookups[.ipv4] == .rejected(.blackhole))
    }

    @Test("a re-dump replaces the kernel's state and keeps DNS, which the kernel does not report")
    func replaceKernelStateKeepsDNS() {
        var snapshot = Snapshot(events: F.dualStackEthernet, dnsConfigured: true)
        snapshot.replaceKernelState(with: [F.lookup(.ipv4, .noRoute)])
        #expect(snapshot.links.isEmpty)
        #expect(snapshot.lookups == [.ipv4: .noRoute])
        #expect(snapshot.dnsConfigured)
    }
}
