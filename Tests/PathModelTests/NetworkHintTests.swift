// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathTestFixtures
import Testing

/// Hints about a link's network in the snapshot: where they come from (a DHCP lease, a
/// router's advertisements), how they merge, and when they are forgotten.
@Suite("Network hints")
struct NetworkHintTests {
    private typealias F = Fixture

    private static func instant(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(sinceBoot: .seconds(seconds)) }
    private static let router = F.ip("fe80::1")
    private static let leased = F.ip("192.168.1.23")

    private static func metered(address: IPAddress? = leased, domains: [String] = ["hotel.example"]) -> DHCPLease {
        DHCPLease(family: .ipv4, address: address, server: "192.168.1.1",
                  hints: NetworkHints(names: [.androidMetered], dnsDomains: domains))
    }

    private static func option(_ content: RouterOption.Content, at seconds: Int = 100,
                               from router: IPAddress = router) -> NetworkEvent {
        .routerOption(RouterOption(interface: F.ethIndex, router: router, receivedAt: instant(seconds),
                                   content: content))
    }

    private static func online() -> Snapshot {
        Snapshot(events: [.linkChanged(F.eth0()), .addressChanged(F.address("192.168.1.23"))])
    }

    @Test func aLeaseIsForgottenWhenItEndsOrItsAddressGoes() {
        var snapshot = Self.online()
        snapshot.recordLease(Self.metered(), on: F.ethIndex)
        #expect(snapshot.hints[F.ethIndex]?.isExpensive == true)
        #expect(snapshot.hints[F.ethIndex]?.dnsDomains == ["hotel.example"])
        let endedSix = snapshot.endLease(of: .ipv6, on: F.ethIndex)
        #expect(!endedSix && snapshot.hints[F.ethIndex] != nil, "another family's end forgets nothing")
        let endedFour = snapshot.endLease(of: .ipv4, on: F.ethIndex)
        #expect(endedFour)
        #expect(snapshot.hints[F.ethIndex] == nil && snapshot.hintSources.isEmpty)

        snapshot.recordLease(Self.metered(), on: F.ethIndex)
        snapshot.apply(.addressRemoved(F.address("192.168.1.99").key))
        #expect(snapshot.hints[F.ethIndex] != nil, "another address leaves the lease")
        snapshot.apply(.addressRemoved(F.address("192.168.1.23").key))
        #expect(snapshot.hints[F.ethIndex] == nil)
    }

    @Test func everyHintIsForgottenWithTheCarrierOrTheLink() {
        var snapshot = Self.online()
        snapshot.recordLease(Self.metered(), on: F.ethIndex)
        snapshot.apply(Self.option(.captivePortal("https://portal.example/")))
        snapshot.apply(.carrierLost(F.ethIndex, at: Self.instant(200)))
        #expect(snapshot.hints[F.ethIndex] == nil && snapshot.hintSources.isEmpty)

        snapshot.recordLease(Self.metered(), on: F.ethIndex)
        snapshot.apply(.linkRemoved(F.ethIndex))
        #expect(snapshot.hints.isEmpty && snapshot.hintSources.isEmpty)
        snapshot.apply(Self.option(.captivePortal("https://portal.example/")))
        #expect(snapshot.hints.isEmpty, "an option for a link pathd does not know is not kept")
    }

    @Test func aReDumpKeepsHintsUnlessTheCarrierOrTheLeasedAddressWentUnheard() {
        var eth0 = F.eth0()
        eth0.carrierDownCount = 3
        let state: [NetworkEvent] = [.linkChanged(eth0), .addressChanged(F.address("192.168.1.23"))]
        var snapshot = Snapshot(events: state)
        snapshot.recordLease(Self.metered(), on: F.ethIndex)
        snapshot.apply(Self.option(.captivePortal("https://portal.example/")))
        snapshot.replaceKernelState(with: state)
        #expect(snapshot.hints[F.ethIndex]?.isExpensive == true)
        #expect(snapshot.hints[F.ethIndex]?.captivePortal == "https://portal.example/")

        // The address went while nobody listened: the lease goes, the router's portal stays.
        snapshot.replaceKernelState(with: [.linkChanged(eth0)])
        #expect(snapshot.hints[F.ethIndex] == NetworkHints(captivePortal: "https://portal.example/"))

        eth0.carrierDownCount = 4
        snapshot.replaceKernelState(with: [.linkChanged(eth0)])
        #expect(snapshot.hints.isEmpty, "the carrier was lost meanwhile")

        snapshot.recordLease(Self.metered(address: nil), on: F.ethIndex)
        var renamed = eth0
        renamed.name = "eth1"
        snapshot.replaceKernelState(with: [.linkChanged(renamed)])
        #expect(snapshot.hints.isEmpty, "another link under the same index")
    }

    @Test func routersDomainsExpireWithTheirLifetimes() {
        var snapshot = Self.online()
        snapshot.apply(Self.option(.dnsSearchList(["hotel.example", "corp.example"], lifetime: .seconds(30)), at: 100))
        snapshot.apply(Self.option(.dnsSearchList(["forever.example"], lifetime: nil), at: 100))
        #expect(snapshot.hints[F.ethIndex]?.dnsDomains == ["hotel.example", "corp.example", "forever.example"])
        #expect(snapshot.nextRouterHintExpiry == Self.instant(130))
        // The next advertisement renews one; the other runs out.
        snapshot.apply(Self.option(.dnsSearchList(["hotel.example"], lifetime: .seconds(30)), at: 120))
        snapshot.expireRouterHints(through: Self.instant(130))
        #expect(snapshot.hints[F.ethIndex]?.dnsDomains == ["hotel.example", "forever.example"])
        #expect(snapshot.nextRouterHintExpiry == Self.instant(150))
        // A lifetime of zero withdraws it at once (radvd says so when it stops).
        snapshot.apply(Self.option(.dnsSearchList(["hotel.example"], lifetime: .zero), at: 121))
        #expect(snapshot.hints[F.ethIndex]?.dnsDomains == ["forever.example"])
        #expect(snapshot.nextRouterHintExpiry == nil)
    }

    @Test func aRouterReplacesItsPortalAndSaysWhenThereIsNone() {
        var snapshot = Self.online()
        snapshot.apply(Self.option(.captivePortal("https://a.example/")))
        snapshot.apply(Self.option(.captivePortal("https://b.example/")))
        #expect(snapshot.hints[F.ethIndex]?.captivePortal == "https://b.example/")
        snapshot.apply(Self.option(.captivePortal(nil)))
        #expect(snapshot.hints[F.ethIndex] == nil)
    }

    @Test func sourcesMergeLeasesFirstThenRoutersByAddress() {
        var snapshot = Self.online()
        snapshot.apply(Self.option(.dnsSearchList(["b.example", "shared.example"], lifetime: nil),
                                   from: F.ip("fe80::2")))
        snapshot.apply(Self.option(.dnsSearchList(["a.example"], lifetime: nil), from: F.ip("fe80::1")))
        snapshot.apply(Self.option(.captivePortal("https://router.example/")))
        snapshot.recordLease(DHCPLease(family: .ipv6, hints: NetworkHints(dnsDomains: ["six.example"])), on: F.ethIndex)
        snapshot.recordLease(DHCPLease(family: .ipv4, hints: NetworkHints(
            dnsDomains: ["shared.example"], captivePortal: "https://lease.example/")), on: F.ethIndex)
        let hints = snapshot.hints[F.ethIndex]
        #expect(hints?.dnsDomains == ["shared.example", "six.example", "a.example", "b.example"])
        #expect(hints?.captivePortal == "https://lease.example/")
        #expect(hints?.names.isEmpty == true)
    }

    @Test func whatOneLinkHoldsIsBounded() {
        var snapshot = Self.online()
        for router in 1...20 {
            let names = (1...40).map { "d\($0).r\(router).example" }
            snapshot.apply(Self.option(.dnsSearchList(names, lifetime: nil), from: F.ip("fe80::\(router)")))
        }
        #expect(snapshot.hintSources[F.ethIndex]?.routers.count == LinkHintSources.maximumRouters)
        #expect(snapshot.hintSources[F.ethIndex]?.routers.values.allSatisfy {
            $0.domains.count == NetworkHints.maximumDomains
        } == true)
        #expect(snapshot.hints[F.ethIndex]?.dnsDomains.count == NetworkHints.maximumDomains)
    }

    @Test(arguments: [
        ("ANDROID_METERED", true),
        ("414e44524f49445f4d455445524544", true),  // dhcpcd: hexadecimal
        ("41:4e:44:52:4f:49:44:5f:4d:45:54:45:52:45:44", true),  // dhclient, for bytes not all printable
        ("01:02:41:4e:44:52:4f:49:44:5f:4d:45:54:45:52:45:44:ff", true),  // inside other sub-options
        ("x ANDROID_METERED y", true),
        ("android_metered", false),
        ("ANDROID", false),
        ("", false),
        ("41:4e:44", false),
    ])
    func vendorOption(text: String, metered: Bool) {
        #expect(NetworkHint.inVendorOption(text) == (metered ? [.androidMetered] : []))
    }

    @Test func captivePortalURIs() {
        #expect(CaptivePortalURI.read("https://portal.example/api?x=1") == .portal("https://portal.example/api?x=1"))
        #expect(CaptivePortalURI.read("HTTP://old.example/") == .portal("HTTP://old.example/"))
        #expect(CaptivePortalURI.read("urn:ietf:params:capport:unrestricted") == CaptivePortalURI.Reading.none)
        for bad in ["", "https://", "ftp://x.example/", "https://a b/", "https://x.example/\u{7}", "javascript:x",
                    "https://" + String(repeating: "a", count: CaptivePortalURI.maximumBytes)] {
            guard case .refused = CaptivePortalURI.read(bad) else {
                Issue.record("\(bad.prefix(40)) was taken")
                continue
            }
        }
    }

    @Test func domainNames() {
        #expect(DomainName.canonical("Hotel.Example.") == "hotel.example")
        #expect(DomainName.canonical("a-b.c1.example") == "a-b.c1.example")
        for bad in ["", ".", "a..b", "-a.example", "a-.example", "a_b.example", "192.168.1.1", "hotel example",
                    String(repeating: "a", count: 64) + ".example", "ä.example"] {
            #expect(DomainName.canonical(bad) == nil, "\(bad)")
        }
    }

    @Test func serverIdentifiers() {
        #expect(DHCPLease.serverRefusal("192.168.1.1", family: .ipv4) == nil)
        #expect(DHCPLease.serverRefusal("00:01:00:01:2b:3c:4d:5e:02:00:00:00:00:01", family: .ipv6) == nil)
        #expect(DHCPLease.serverRefusal("000100012b3c4d5e020000000001", family: .ipv6) == nil)
        #expect(DHCPLease.serverRefusal("2001:db8::1", family: .ipv4) != nil)
        #expect(DHCPLease.serverRefusal("192.168.1.1", family: .ipv6) != nil)
        #expect(DHCPLease.serverRefusal("0", family: .ipv6) != nil)
        #expect(DHCPLease.serverRefusal(String(repeating: "ab", count: 131), family: .ipv6) != nil)
    }
}
