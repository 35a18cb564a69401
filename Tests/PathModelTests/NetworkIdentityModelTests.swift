// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathTestFixtures
import Testing

@Suite("Network identity values")
struct NetworkIdentityModelTests {
    private typealias F = Fixture

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than a block is hashed first).
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacVectors(key: [UInt8], message: [UInt8], digest: String) {
        #expect(Hexadecimal.text(HMAC.sha256(key: key, message: message)) == digest)
    }

    /// What `systemd-id128 machine-id --app-specific=3691b716701142dd978e968524f14d7e`
    /// printed on a machine whose /etc/machine-id is 3d1219c7c4c5404aaa1f6d2a48adfda4
    /// (systemd 252): the key is sd_id128_get_app_specific's construction, byte for byte.
    @Test func keyIsSystemdsApplicationSpecificID() throws {
        let base = try #require(NetworkKey.baseID("3d1219c7c4c5404aaa1f6d2a48adfda4\n"))
        let key = try #require(NetworkKey(base: base))
        #expect(Hexadecimal.text(key.bytes) == "6818eb5c18294ef4bb19c15bd26810b4")
        #expect(NetworkKey.baseID("3d1219c7-c4c5-404a-aa1f-6d2a48adfda4") == base)
        #expect(NetworkKey.baseID("3d1219c7c4c5404aaa1f6d2a48adfda") == nil)
        #expect(NetworkKey(base: [UInt8](repeating: 0, count: 16)) == nil)
    }

    @Test func idsDependOnTheFactsAndTheKey() throws {
        let mac = try #require(LinkLayerAddress("02:00:00:00:00:01"))
        let other = try #require(LinkLayerAddress("02:00:00:00:00:02"))
        let key = try #require(NetworkKey(base: Array(1...16)))
        let otherKey = try #require(NetworkKey(base: Array(2...17)))
        let home = NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [mac])
        #expect(key.id(of: home) == key.id(of: NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [mac])))
        #expect(key.id(of: home) != key.id(of: NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [other])))
        #expect(key.id(of: home) != otherKey.id(of: home))
        let id = key.id(of: home)
        #expect(NetworkID(id.description) == id)
        #expect(id.description.count == 32)
    }

    @Test("an ID keeps its bytes, writes them as hexadecimal and orders as they do")
    func idBytesTextAndOrder() throws {
        var generator = SystemRandomNumberGenerator()
        let ids = try (0..<200).map { _ in
            try #require(NetworkID(bytes: (0..<16).map { _ in UInt8.random(in: 0 ... .max, using: &generator) }))
        } + [try #require(NetworkID(bytes: [UInt8](repeating: 0, count: 16))),
             try #require(NetworkID(bytes: [UInt8](repeating: 0xFF, count: 16)))]
        for id in ids {
            #expect(NetworkID(bytes: id.bytes) == id)
            #expect(id.description == Hexadecimal.text(id.bytes))
            #expect(NetworkID(id.description.uppercased()) == id)
        }
        #expect(ids.sorted().map(\.bytes) == ids.map(\.bytes).sorted { $0.lexicographicallyPrecedes($1) })
        #expect(NetworkID(bytes: Array(0..<15)) == nil && NetworkID(bytes: Array(0..<17)) == nil)
    }

    /// A key remembers the IDs it computed last (`NetworkKey.id(of:)`): each is the HMAC
    /// a fresh key computes, also past the memory's capacity, and key copies share it.
    @Test func rememberedIDsAreTheComputedOnes() throws {
        let key = try #require(NetworkKey(base: Array(1...16)))
        let facts = (0..<100).map {
            NetworkFacts(anchor: .prefix, prefix: IPPrefix("10.\($0).0.0/16"), linkKind: "tun")
        }
        let first = facts.map(key.id(of:))
        let copy = key
        for (index, network) in facts.enumerated().reversed() {
            let fresh = try #require(NetworkKey(base: Array(1...16)))
            #expect(copy.id(of: network) == first[index])
            #expect(fresh.id(of: network) == first[index])
            let digest = HMAC.sha256(key: key.bytes, message: network.canonicalBytes)
            #expect(first[index] == NetworkID(Hexadecimal.text(Array(digest.prefix(16)))))
        }
        #expect(Set(first).count == facts.count)
        #expect(copy == key && copy.hashValue == key.hashValue)
    }

    @Test func linkLayerAddresses() {
        #expect(LinkLayerAddress("00-00-5E-00-01-01")?.description == "00:00:5e:00:01:01")
        #expect(LinkLayerAddress("00:00:5e:00:01") != nil)
        for bad in ["", "0:00:5e:00:01:01", "00:00:5e:00:01:0g", "00:00-5e:00:01:01", "00::5e:00:01:01"] {
            #expect(LinkLayerAddress(bad) == nil, "\(bad)")
        }
        for shared in ["00:00:5e:00:01:01", "00:00:5e:00:02:ff", "00:00:0c:07:ac:0a", "00:00:0c:9f:f0:01"] {
            #expect(LinkLayerAddress(shared)?.isVirtualRouter == true, "\(shared)")
        }
        for own in ["00:00:5e:00:03:01", "00:00:0c:07:ad:0a", "00:00:0c:9f:e0:01", "02:00:00:00:00:01",
                    "00:00:5e:00:01", "00:00:5e:00:01:01:00"] {
            #expect(LinkLayerAddress(own)?.isVirtualRouter == false, "\(own)")
        }
        #expect(LinkLayerAddress(bytes: []) == nil && LinkLayerAddress(bytes: [UInt8](repeating: 1, count: 33)) == nil)
    }

    @Test("an address keeps its bytes, of any length, and compares, orders and hashes as they do")
    func linkLayerAddressBytes() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [[UInt8]] = [[0], [0, 0], [0xFF], [1, 2], [1, 2, 0], [1, 3], [1, 2, 5],
                                  [UInt8](repeating: 0xFF, count: 32), [UInt8](repeating: 0, count: 32)]
        for _ in 0..<300 {
            let count = Int.random(in: 1...LinkLayerAddress.maximumBytes, using: &generator)
            // Few values, so that equal prefixes and equal addresses of other lengths come up.
            samples.append((0..<count).map { _ in UInt8.random(in: 0...2, using: &generator) })
        }
        let addresses = try samples.map { try #require(LinkLayerAddress(bytes: $0)) }
        for (address, bytes) in zip(addresses, samples) {
            #expect(address.bytes == bytes)
            #expect(address.description == bytes.map { Hexadecimal.text([$0]) }.joined(separator: ":"))
        }
        for (left, leftBytes) in zip(addresses, samples).prefix(60) {
            for (right, rightBytes) in zip(addresses, samples) {
                #expect((left == right) == (leftBytes == rightBytes))
                #expect((left < right) == leftBytes.lexicographicallyPrecedes(rightBytes))
                if left == right { #expect(left.hashValue == right.hashValue) }
            }
        }
    }

    @Test func prefixes() {
        #expect(IPPrefix("192.168.1.7/24")?.description == "192.168.1.0/24")
        #expect(IPPrefix("192.168.1.0/24")?.contains(F.ip("192.168.1.200")) == true)
        #expect(IPPrefix("192.168.1.0/24")?.contains(F.ip("192.168.2.1")) == false)
        #expect(IPPrefix("2001:db8:1::/48")?.contains(F.ip("2001:db8:1:2::1")) == true)
        for bad in ["192.168.1.0/33", "192.168.1.0", "2001:db8::/129", "x/24", "192.168.1.0/+4"] {
            #expect(IPPrefix(bad) == nil, "\(bad)")
        }
    }

    private static let gateway = F.ip("192.168.1.1")
    private static func instant(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(sinceBoot: .seconds(seconds)) }
    private static func entry(_ mac: String, confirmedAt seconds: Int?,
                              state: NeighbourState = .reachable) -> Neighbour {
        Neighbour(interface: F.ethIndex, address: gateway, linkLayerAddress: LinkLayerAddress(mac), state: state,
                  confirmedAt: seconds.map(instant))
    }

    @Test func freshnessIsAConfirmationAfterTheLastCarrierLoss() {
        let lost = CarrierEpoch(lostAt: Self.instant(100), cameBackAt: Self.instant(102), isSettling: true)
        #expect(Self.entry("02:00:00:00:00:01", confirmedAt: 101).isConfirmed(since: lost))
        #expect(!Self.entry("02:00:00:00:00:01", confirmedAt: 99).isConfirmed(since: lost))
        #expect(!Self.entry("02:00:00:00:00:01", confirmedAt: nil).isConfirmed(since: lost))
        // Never lost while pathd watched: the kernel's word.
        #expect(Self.entry("02:00:00:00:00:01", confirmedAt: nil, state: .stale).isConfirmed(since: nil))
        // Unresolved: nothing to name a network with.
        #expect(!Self.entry("02:00:00:00:00:01", confirmedAt: 101, state: .failed).isConfirmed(since: lost))
    }

    @Test func snapshotKeepsCarrierEpochsAndNeighbours() {
        var snapshot = Snapshot(events: [.linkChanged(F.eth0()), F.defaultRoute(.ipv4, via: F.ethIndex,
                                                                               gateway: "192.168.1.1")])
        snapshot.apply(.neighbourChanged(Self.entry("02:00:00:00:00:01", confirmedAt: 50)))
        #expect(snapshot.confirmedNeighbour(of: Self.gateway, on: F.ethIndex) != nil)
        snapshot.apply(.carrierLost(F.ethIndex, at: Self.instant(100)))
        snapshot.apply(.carrierRegained(F.ethIndex, at: Self.instant(102)))
        #expect(snapshot.confirmedNeighbour(of: Self.gateway, on: F.ethIndex) == nil)
        #expect(snapshot.unconfirmedGateways == [Neighbour.Key(interface: F.ethIndex, address: Self.gateway)])
        #expect(snapshot.carrierEpochs[F.ethIndex]?.isSettling == true)
        // An older message after a newer answer takes no confirmation back.
        snapshot.apply(.neighbourChanged(Self.entry("02:00:00:00:00:01", confirmedAt: 103)))
        snapshot.apply(.neighbourChanged(Self.entry("02:00:00:00:00:01", confirmedAt: 60)))
        #expect(snapshot.confirmedNeighbour(of: Self.gateway, on: F.ethIndex)?.confirmedAt == Self.instant(103))
        #expect(snapshot.unconfirmedGateways.isEmpty)
        snapshot.endSettling(of: F.ethIndex, cameBackAt: Self.instant(101))
        #expect(snapshot.carrierEpochs[F.ethIndex]?.isSettling == true, "another return's timer ends nothing")
        snapshot.endSettling(of: F.ethIndex, cameBackAt: Self.instant(102))
        #expect(snapshot.carrierEpochs[F.ethIndex]?.isSettling == false)
    }

    @Test func aReDumpKeepsEpochsUnlessTheCarrierWasLostMeanwhile() {
        var eth0 = F.eth0()
        eth0.carrierDownCount = 1
        var snapshot = Snapshot(events: [.linkChanged(eth0), .carrierLost(F.ethIndex, at: Self.instant(10)),
                                         .carrierRegained(F.ethIndex, at: Self.instant(11))])
        snapshot.recordLease(DHCPLease(family: .ipv4, hints: NetworkHints(names: [.androidMetered])), on: F.ethIndex)
        snapshot.replaceKernelState(with: [.linkChanged(eth0)], readAt: Self.instant(50))
        #expect(snapshot.carrierEpochs[F.ethIndex]?.lostAt == Self.instant(10))
        #expect(snapshot.hints[F.ethIndex]?.isExpensive == true)
        eth0.carrierDownCount = 2
        snapshot.replaceKernelState(with: [.linkChanged(eth0)], readAt: Self.instant(60))
        #expect(snapshot.carrierEpochs[F.ethIndex] == CarrierEpoch(lostAt: Self.instant(60),
                                                                   cameBackAt: Self.instant(60), isSettling: true))
        snapshot.replaceKernelState(with: [], readAt: Self.instant(70))
        #expect(snapshot.hints.isEmpty && snapshot.carrierEpochs.isEmpty)
    }

    @Test func costPrecedence() {
        #expect(LinkCost.decide(network: false, interface: true, hint: true, typeDefault: true) == (false, .network))
        #expect(LinkCost.decide(network: nil, interface: false, hint: true, typeDefault: true) == (false, .interface))
        #expect(LinkCost.decide(network: nil, interface: nil, hint: true, typeDefault: false) == (true, .hint))
        #expect(LinkCost.decide(network: nil, interface: nil, hint: nil, typeDefault: true) == (true, .type))
    }
}
