// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

@Suite("policy: [Interface] rules applied in order")
struct PolicyRuleTests {
    func link(_ name: String, _ type: InterfaceType, kind: String? = nil) -> Link {
        Link(index: InterfaceIndex(rawValue: 9), name: name, flags: [.up, .running], operState: .up,
             hardwareType: .ether, kind: kind, type: type)
    }

    /// The cost `[Interface]` sections and the type decide (no network, no hint).
    func cost(_ policy: Policy, _ link: Link) -> LinkCost {
        policy.cost(of: policy.settings(for: link), network: nil, hints: .none)
    }

    func policy(_ text: String) -> Policy {
        let result = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return result.configuration.policy
    }

    @Test("built in: cellular is expensive, nothing else; overridable")
    func builtIn() {
        #expect(cost(Policy.standard, link("wwan0", .cellular)).isExpensive)
        #expect(!cost(Policy.standard, link("eth0", .wiredEthernet)).isExpensive)
        let free = policy("[Interface]\nType=cellular\nExpensive=no\n")
        #expect(!cost(free, link("wwan0", .cellular)).isExpensive)
    }

    @Test("later matching sections override earlier ones, setting by setting")
    func order() {
        let rules = policy("""
            [Interface]
            Name=veth*
            Expensive=yes
            Constrained=yes
            [Interface]
            Name=vethB
            Expensive=no
            [Interface]
            Name=nomatch
            Constrained=no
            """)
        let a = cost(rules, link("vethA", .other, kind: "veth"))
        #expect(a.isExpensive && a.isConstrained)
        let b = cost(rules, link("vethB", .other, kind: "veth"))
        #expect(!b.isExpensive && b.isConstrained)
        let untouched = rules.settings(for: link("eth0", .wiredEthernet))
        #expect(untouched == Policy.standard.settings(for: link("eth0", .wiredEthernet)))
        #expect(untouched.stated == InterfaceSettings.Stated())
    }

    @Test("all match keys must admit the link; Kind= needs a kind unless only negated")
    func matchKeys() {
        let rules = policy("""
            [Interface]
            Name=e*
            Type=wiredEthernet
            Kind=!veth
            OnDemand=yes
            [Interface]
            Kind=wireguard tun
            Ignore=yes
            """)
        #expect(rules.settings(for: link("eth0", .wiredEthernet)).isOnDemand)
        #expect(!rules.settings(for: link("eth0", .wiredEthernet, kind: "veth")).isOnDemand)
        #expect(!rules.settings(for: link("eth0", .other)).isOnDemand)
        #expect(rules.settings(for: link("wg0", .other, kind: "wireguard")).isIgnored)
        #expect(!rules.settings(for: link("eth0", .wiredEthernet)).isIgnored)
    }

    @Test("Type= matches the detected type; SetType= feeds the type defaults")
    func typeAndSetType() {
        let rules = policy("""
            [Interface]
            Name=usb0
            SetType=cellular
            [Interface]
            Type=cellular
            Constrained=yes
            [Interface]
            Name=usb1
            SetType=cellular
            Expensive=no
            """)
        let usb0 = rules.settings(for: link("usb0", .wiredEthernet))
        #expect(usb0.stated.setType == .cellular)
        #expect(usb0.type == .cellular)
        // Expensive from the cellular default; not constrained: Type=cellular sees "wiredEthernet".
        #expect(cost(rules, link("usb0", .wiredEthernet)) == LinkCost(isExpensive: true, isExpensiveSetBy: .type,
                                                                       isConstrained: false, isConstrainedSetBy: .type))
        #expect(!cost(rules, link("usb1", .wiredEthernet)).isExpensive)
        let modem = rules.settings(for: link("wwan0", .cellular))
        #expect(modem.stated.setType == nil)
        #expect(cost(rules, link("wwan0", .cellular)) == LinkCost(isExpensive: true, isExpensiveSetBy: .type,
                                                                   isConstrained: true, isConstrainedSetBy: .interface))
    }

    @Test("a section without match keys applies to every interface")
    func matchAll() {
        let rules = policy("[Interface]\nConstrained=yes\n")
        #expect(cost(rules, link("anything", .wifi)).isConstrained)
    }
}

@Suite("policy: a value, though its parts share one box")
struct PolicyValueTests {
    func parsed(_ text: String) -> Policy {
        let result = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return result.configuration.policy
    }

    @Test("changing a copy, part by part, leaves the original as it was")
    func copiesAreIndependent() throws {
        let original = parsed("[Interface]\nName=wlan0\nExpensive=yes\n"
                                  + "[Network]\nGatewayMAC=00:11:22:33:44:55\nName=home\n")
        let key = try #require(NetworkKey(base: Array(1...16)))
        var changed = original
        changed.expensiveTypes.insert(.wifi)
        changed.constrainedTypes.insert(.cellular)
        changed.rules.removeAll()
        changed.networks.removeAll()
        changed.networkKey = key
        #expect(original.expensiveTypes == [.cellular] && original.constrainedTypes.isEmpty)
        #expect(original.rules.count == 1 && original.networks.count == 1 && original.networkKey == nil)
        #expect(changed.expensiveTypes == [.cellular, .wifi] && changed.constrainedTypes == [.cellular])
        #expect(changed.rules.isEmpty && changed.networks.isEmpty && changed.networkKey == key)
        #expect(changed != original)
    }

    @Test("equal parts are equal policies with equal hashes, in one box or two")
    func equalityIsByParts() {
        let text = "[Interface]\nType=cellular\nExpensive=no\n"
        let one = parsed(text)
        let other = parsed(text)
        let copy = one
        #expect(one == other && one == copy)
        #expect(one.hashValue == other.hashValue && one.hashValue == copy.hashValue)
        var changedBack = one
        changedBack.expensiveTypes.insert(.wifi)
        #expect(changedBack != one)
        changedBack.expensiveTypes.remove(.wifi)
        #expect(changedBack == one && changedBack.hashValue == one.hashValue)
        #expect(Set([one, other, copy, changedBack]).count == 1)
    }
}
