// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

@Suite("[Network] sections: keys, errors, matching, cost")
struct NetworkSettingsTests {
    func parse(_ text: String) -> ConfigurationResult {
        Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
    }

    static let homeMAC = LinkLayerAddress("02:00:00:00:00:01")!
    static let wlan0 = Link(index: InterfaceIndex(rawValue: 3), name: "wlan0", flags: [.up, .running],
                            operState: .up, hardwareType: .ether, type: .wifi)

    func candidate(mac: LinkLayerAddress = homeMAC, link: Link = wlan0, hints: NetworkHints = .none,
                   id: NetworkID = NetworkID("00112233445566778899aabbccddeeff")!) -> NetworkCandidate {
        NetworkCandidate(id: id, facts: NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [mac]), link: link,
                         gateways: [IPAddress("192.168.1.1")!], addresses: [IPAddress("192.168.1.20")!], hints: hints)
    }

    @Test("every key parses and --check-config renders it back the same")
    func everyKey() throws {
        let result = parse("""
            [Network]
            ID=00112233445566778899AABBCCDDEEFF
            GatewayMAC=02:00:00:00:00:01 00-00-5E
            GatewayAddress=192.168.1.1 fe80::1
            Prefix=192.168.1.0/24
            DNSDomain=Home.Example.
            Interface=wlan* !wlan9
            Type=wifi
            Hint=androidMetered
            Name=home
            Expensive=no
            Constrained=yes
            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let rule = try #require(result.configuration.policy.networks.first)
        #expect(rule.origin == "pathd.conf:1")
        #expect(rule.stated == NetworkSettings.Stated(name: "home", isExpensive: false, isConstrained: true))
        #expect(rule.match.gatewayMACs == [[2, 0, 0, 0, 0, 1], [0, 0, 0x5e]])
        #expect(rule.match.dnsDomains == ["home.example"])
        #expect(rule.renderedLines == [
            "ID=00112233445566778899aabbccddeeff", "GatewayMAC=02:00:00:00:00:01 00:00:5e",
            "GatewayAddress=192.168.1.1 fe80::1", "Prefix=192.168.1.0/24", "DNSDomain=home.example",
            "Interface=wlan* !wlan9", "Type=wifi", "Hint=androidMetered", "Name=home", "Expensive=no",
            "Constrained=yes",
        ])
        let again = parse(result.configuration.renderedINI())
        #expect(again.isValid)
        #expect(again.configuration.policy.networks.map(\.match) == [rule.match])
    }

    @Test("a malformed value is an error naming file, line and the word; the section keeps nothing of it")
    func errors() {
        let result = parse("""
            [Network]
            GatewayMAC=02:00:00:00:00:01 02:00:00:00:0:02
            Prefix=192.168.1.0/33
            ID=0011
            Name=home wifi
            Hint=metered
            DNSDomain=-bad-.example
            GatewayAddress=192.168.1
            Expensive=sometimes
            """)
        #expect(!result.isValid)
        #expect(result.diagnostics.map(\.description) == [
            "pathd.conf:2: GatewayMAC= expects MAC addresses (00:00:5e:00:01:01), or their first bytes "
                + "(an OUI: 00:00:5e), got \"02:00:00:00:0:02\"",
            "pathd.conf:3: Prefix= expects prefixes (192.168.1.0/24, 2001:db8::/64), got \"192.168.1.0/33\"",
            "pathd.conf:4: ID= expects IDs of 32 hexadecimal digits, as pathctl prints them, got \"0011\"",
            "pathd.conf:5: Name= expects letters, digits, '.', '_' and '-', starting with a letter or digit, "
                + "at most 64 bytes, got \"home wifi\"",
            "pathd.conf:6: Hint= expects androidMetered, ipheth, got \"metered\"",
            "pathd.conf:7: DNSDomain= expects domain names, got \"-bad-.example\"",
            "pathd.conf:8: GatewayAddress= expects IPv4 or IPv6 addresses, got \"192.168.1\"",
            "pathd.conf:9: Expensive= expects a boolean (yes, no, true, false, on, off, 1, 0), got \"sometimes\"",
        ])
        #expect(result.configuration.policy.networks.first?.match.gatewayMACs.isEmpty == true)
    }

    @Test("past 1024 sections the configuration is invalid; past 64 values a key is refused")
    func bounds() {
        let many = String(repeating: "[Network]\nName=x\n", count: Configuration.maximumNetworkSections + 1)
        let result = parse(many)
        #expect(result.diagnostics.map(\.description) == ["pathd.conf:2049: more than 1024 [Network] sections"])
        let addresses = (1...65).map { "10.0.0.\($0)" }.joined(separator: " ")
        let tooMany = parse("[Network]\nGatewayAddress=\(addresses)\n")
        #expect(tooMany.diagnostics.map(\.description)
                == ["pathd.conf:2: GatewayAddress= has more than 64 values in one section"])
    }

    @Test("every key given must match, any of its values; the first matching section is the network's")
    func matching() {
        let policy = parse("""
            [Network]
            GatewayMAC=02:00:00
            Interface=eth*
            Name=wired-only
            [Network]
            GatewayMAC=02:00:00
            DNSDomain=hotel.example
            Name=hotel
            [Network]
            GatewayMAC=02:00:00:00:00:09 02:00:00:00:00:01
            Prefix=10.0.0.0/8 192.168.0.0/16
            Name=home
            [Network]
            Name=anything
            """).configuration.policy
        #expect(policy.network(for: candidate())?.stated.name == "home")
        #expect(policy.network(for: candidate(hints: NetworkHints(dnsDomains: ["hotel.example"])))?.stated.name
                == "hotel")
        var eth0 = Self.wlan0
        eth0.name = "eth0"
        #expect(policy.network(for: candidate(link: eth0))?.stated.name == "wired-only")
        #expect(policy.network(for: candidate(mac: LinkLayerAddress("0a:00:00:00:00:01")!))?.stated.name
                == "anything")
    }

    @Test("cost: [Network] over [Interface] over hints over the type, each saying who decided")
    func costPrecedence() throws {
        let policy = parse("""
            [Interface]
            Name=usb0
            Expensive=no
            [Network]
            Hint=ipheth
            Name=phone
            [Network]
            GatewayMAC=02:00:00:00:00:01
            Expensive=yes
            Name=hotspot
            """).configuration.policy
        var usb0 = Self.wlan0
        usb0.name = "usb0"
        usb0.type = .wiredEthernet
        let settings = policy.settings(for: usb0)
        let iphone = NetworkHints(names: [.ipheth])
        // The hint says expensive, [Interface] says no: [Interface] wins; the phone's section states nothing.
        let phone = policy.network(for: candidate(mac: LinkLayerAddress("0a:00:00:00:00:07")!, link: usb0,
                                                  hints: iphone))
        #expect(phone?.stated.name == "phone")
        #expect(policy.cost(of: settings, network: phone, hints: iphone).isExpensiveSetBy == .interface)
        #expect(policy.cost(of: settings, network: phone, hints: iphone).isExpensive == false)
        let hotspot = try #require(policy.network(for: candidate(link: usb0)))
        #expect(policy.cost(of: settings, network: hotspot, hints: .none)
                == LinkCost(isExpensive: true, isExpensiveSetBy: .network, isConstrained: false,
                            isConstrainedSetBy: .type))
        let wlan = policy.settings(for: Self.wlan0)
        #expect(policy.cost(of: wlan, network: nil, hints: iphone).isExpensiveSetBy == .hint)
        #expect(policy.cost(of: wlan, network: nil, hints: .none).isExpensiveSetBy == .type)
    }
}
