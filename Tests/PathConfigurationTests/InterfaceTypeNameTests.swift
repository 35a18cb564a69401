// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

/// One table of interface type names (`InterfaceType.writtenNames`) for pathctl's
/// options and pathd.conf's `Type=` and `SetType=`; the protocol keeps to the exact names.
@Suite("interface type names: what a person may write, and what the protocol takes")
struct InterfaceTypeNameTests {
    func parse(_ text: String) -> ConfigurationResult {
        Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
    }

    /// Every spelling pathctl accepts, as written, upper case and lower case.
    static let spellings: [(String, InterfaceType)] = InterfaceType.writtenNames.flatMap { name, type in
        [name, name.uppercased(), name.lowercased()].map { ($0, type) }
    }

    @Test("SetType= and Type= take every name pathctl takes, in any case, and keep the protocol's name",
          arguments: spellings)
    func configurationTakesWrittenNames(written: String, type: InterfaceType) throws {
        let result = parse("[Interface]\nName=x*\nType=\(written) !\(written)\nSetType=\(written)\n")
        #expect(result.isValid, "\(result.diagnostics.map(\.description))")
        let rule = try #require(result.configuration.policy.rules.first)
        #expect(rule.stated.setType == type)
        #expect(rule.match.type.terms == [type.rawValue, "!" + type.rawValue])
        #expect(rule.renderedLines.contains("SetType=\(type.rawValue)"), "\(rule.renderedLines)")
        #expect(rule.renderedLines.contains("Type=\(type.rawValue) !\(type.rawValue)"), "\(rule.renderedLines)")
    }

    @Test("Type=wired matches a detected wiredEthernet link, Type=!WIFI excludes a wifi one")
    func aliasesMatch() throws {
        func link(_ type: InterfaceType) -> Link {
            Link(index: InterfaceIndex(rawValue: 9), name: "x0", flags: [.up, .running], operState: .up,
                 hardwareType: .ether, kind: nil, type: type)
        }
        let wired = try #require(parse("[Interface]\nType=wired\nExpensive=yes\n").configuration.policy.rules.first)
        #expect(wired.match.matches(link(.wiredEthernet)))
        #expect(!wired.match.matches(link(.wifi)))
        let notWifi = try #require(parse("[Interface]\nType=!WIFI\nExpensive=yes\n").configuration.policy.rules.first)
        #expect(!notWifi.match.matches(link(.wifi)))
        #expect(notWifi.match.matches(link(.cellular)))
    }

    @Test("the effective configuration (--check-config) prints the protocol's names")
    func renderedCanonically() {
        let result = parse("[Interface]\nName=enx*\nType=Ethernet !wifi\nSetType=CELLULAR\n")
        #expect(result.isValid)
        let text = result.configuration.renderedINI(header: ["Effective configuration"])
        #expect(text.contains("Type=wiredEthernet !wifi\n"), "\(text)")
        #expect(text.contains("SetType=cellular\n"), "\(text)")
        #expect(!text.contains("Type=Ethernet") && !text.contains("CELLULAR"), "\(text)")
    }

    @Test("an unknown name is an error listing every accepted spelling, and changes nothing")
    func unknownName() {
        let result = parse("[Interface]\nType=wifi modem\nSetType=wire\n")
        #expect(!result.isValid)
        let accepted = "wifi, cellular, wiredEthernet, loopback, other, in any case (also wired or ethernet for " +
                       "wiredEthernet)"
        #expect(InterfaceType.writtenNamesDescription == accepted)
        #expect(result.diagnostics.map(\.description) == [
            "pathd.conf:2: Type= expects types among \(accepted) (each may start with !), got \"modem\"",
            "pathd.conf:3: SetType= expects one of \(accepted), got \"wire\"",
        ])
        var rule = InterfaceSettings()
        #expect(rule.set("Type", to: "wifi !modem") != .set)
        #expect(rule == InterfaceSettings(), "the accepted term before the refused one was kept")
    }

    @Test("the protocol's reading stays exact: no other case, no everyday words")
    func protocolStaysExact() {
        for type in InterfaceType.allCases {
            #expect(InterfaceType(known: type.rawValue) == type)
            #expect(InterfaceType(written: type.rawValue) == type)
        }
        for other in ["WIFI", "WiFi", "wired", "ethernet", "Ethernet", "wiredethernet"] {
            #expect(InterfaceType(known: other) == nil, "\(other)")
            #expect(InterfaceType(written: other) != nil, "\(other)")
        }
        #expect(InterfaceType(written: "pigeon") == nil)
        #expect(InterfaceType(written: "") == nil)
    }
}
