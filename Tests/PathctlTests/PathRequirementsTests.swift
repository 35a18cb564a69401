// SPDX-License-Identifier: Apache-2.0
@testable import pathctl
import PathModel
import PathProtocol
import Testing

@Suite("pathctl's path requirements: --ipv4, --ipv6, --dns, --internet")
struct PathRequirementsTests {
    static func update(_ status: PathStatus = .satisfied, ipv4: Bool = true, ipv6: Bool = false, dns: Bool = true,
                       connectivity: ConnectivityState = .unknown) -> PathUpdate {
        let eth0 = Interface(name: "eth0", index: InterfaceIndex(rawValue: 2), type: .wiredEthernet)
        let path = Path(status: status, unsatisfiedReason: status == .unsatisfied ? .noRoute : nil,
                        availableInterfaces: status == .unsatisfied ? [] : [eth0],
                        supportsIPv4: ipv4, supportsIPv6: ipv6, supportsDNS: dns)
        let evidence = connectivity == .unknown ? nil
            : ConnectivityEvidence(url: "http://check.example/", interface: "eth0",
                                   checkedAt: UTCTime(secondsSinceEpoch: 0))
        return PathUpdate(generation: Generation(rawValue: 1), sequence: 1, path: path,
                          connectivity: Connectivity(state: connectivity, evidence: evidence))
    }

    @Test("each option, and -4 and -6, is read by wait and status; status with one is a check")
    func readFromCommandLine() throws {
        #expect(try parsed(WaitVerb.self, "wait", "-4", "--ipv6", "--dns", "--internet").requirements
            == [.ipv4, .ipv6, .dns, .internet])
        #expect(try parsed(WaitVerb.self, "wait", "-6").requirements == .ipv6)
        #expect(try parsed(WaitVerb.self, "wait").requirements.isEmpty)
        let status = try parsed(StatusVerb.self, "status", "--dns")
        #expect(status.requirements == .dns && status.check)
        #expect(try !parsed(StatusVerb.self, "status").check)
        for command in ["monitor", "interfaces", "metrics"] {
            #expect(usageError(command, "--ipv6") == "--ipv6 does not apply to \(command)")
        }
    }

    @Test("a satisfied path meets what it carries, and names what it lacks")
    func unmet() {
        let v4 = Self.update()
        #expect(PathRequirements().unmet(by: v4) == nil)
        #expect(PathRequirements([.ipv4, .dns]).unmet(by: v4) == nil)
        #expect(PathRequirements.ipv6.unmet(by: v4) == "the path has no IPv6: satisfied via eth0 (IPv4, DNS)")
        #expect(PathRequirements([.ipv6, .internet]).unmet(by: Self.update(dns: false))
            == "the path has no IPv6 and full Internet access: satisfied via eth0 (IPv4)")
        #expect(PathRequirements.dns.unmet(by: Self.update(ipv6: true, dns: false)) != nil)
    }

    @Test("an unsatisfied path meets nothing, and says why in its own words")
    func unsatisfied() {
        let down = Self.update(.unsatisfied, ipv4: false, dns: false)
        #expect(PathRequirements().unmet(by: down)?.hasPrefix("the path is not satisfied: unsatisfied: ") == true)
        #expect(PathRequirements.ipv4.unmet(by: down) == PathRequirements().unmet(by: down))
    }

    @Test("--internet is met by the check's full only: not a portal, limited, none or no check")
    func internet() {
        #expect(PathRequirements.internet.unmet(by: Self.update(connectivity: .full)) == nil)
        for state: ConnectivityState in [.portal, .limited, .none, .unknown] {
            let update = Self.update(connectivity: state)
            #expect(PathRequirements.internet.unmet(by: update)?.hasPrefix("the path has no full Internet access: ")
                    == true,
                    "\(state)")
        }
    }

    @Test("a timeout names what was awaited")
    func goal() {
        #expect(PathRequirements().goal == "a satisfied path")
        #expect(PathRequirements.ipv6.goal == "a satisfied path with IPv6")
        #expect(PathRequirements([.internet, .ipv4, .dns]).goal
                == "a satisfied path with IPv4, DNS and full Internet access")
    }
}
