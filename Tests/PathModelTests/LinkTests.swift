// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

struct LinkStateCase: Sendable, CustomTestStringConvertible {
    var flags: LinkFlags
    var operState: OperState
    var expected: LinkState
    init(_ flags: LinkFlags, _ operState: OperState, _ expected: LinkState) {
        self.flags = flags
        self.operState = operState
        self.expected = expected
    }
    var testDescription: String {
        "flags 0x\(String(flags.rawValue, radix: 16)) \(operState.name) → \(expected.rawValue)"
    }
}

@Suite("Link")
struct LinkTests {
    private static func link(_ flags: LinkFlags, _ operState: OperState, hardwareType: HardwareType = .ether,
                             type: InterfaceType = .wiredEthernet) -> Link {
        Link(index: InterfaceIndex(rawValue: 2), name: "eth0", flags: flags, operState: operState,
             hardwareType: hardwareType, type: type)
    }

    @Test(arguments: [
        LinkStateCase([], .up, .adminDown),
        LinkStateCase([.running, .lowerUp], .up, .adminDown),
        LinkStateCase([], .down, .adminDown),
        LinkStateCase([.up], .down, .noCarrier),
        LinkStateCase([.up], .up, .noCarrier),
        LinkStateCase([.up], .unknown, .noCarrier),
        LinkStateCase([.up, .lowerUp], .lowerLayerDown, .noCarrier),
        LinkStateCase([.up, .running], .up, .usable),
        LinkStateCase([.up, .running, .lowerUp], .up, .usable),
        LinkStateCase([.up, .running], .unknown, .usable),
        LinkStateCase([.up, .running], .down, .noCarrier),
        LinkStateCase([.up, .running], .lowerLayerDown, .noCarrier),
        LinkStateCase([.up, .running], .notPresent, .noCarrier),
        LinkStateCase([.up, .running], .testing, .noCarrier),
        LinkStateCase([.up, .running], .dormant, .dormant),
        LinkStateCase([.up, .lowerUp], .dormant, .dormant),
        LinkStateCase([.up, .lowerUp, .dormant], .up, .dormant),
        LinkStateCase([.dormant], .dormant, .adminDown),
    ])
    func linkState(_ testCase: LinkStateCase) {
        #expect(Self.link(testCase.flags, testCase.operState).linkState == testCase.expected)
    }

    @Test func loopbackIsRecognisedByFlagHardwareOrType() {
        #expect(Self.link([.up, .loopback], .unknown).isLoopback)
        #expect(Self.link([.up], .unknown, hardwareType: .loopback).isLoopback)
        #expect(Self.link([.up], .unknown, type: .loopback).isLoopback)
        #expect(!Self.link([.up, .running], .up).isLoopback)
    }

    @Test(arguments: OperState.allCases)
    func operStateNamesAreDistinct(_ state: OperState) {
        #expect(!state.name.isEmpty)
        #expect(OperState.allCases.filter { $0.name == state.name } == [state])
    }

    @Test func addressFamilyLinuxValues() {
        #expect(AddressFamily.ipv4.linuxValue == 2)
        #expect(AddressFamily.ipv6.linuxValue == 10)
        for family in AddressFamily.allCases { #expect(AddressFamily(linuxValue: family.linuxValue) == family) }
        #expect(AddressFamily(linuxValue: 0) == nil)
        #expect(AddressFamily(linuxValue: 17) == nil)
    }

    @Test(arguments: [
        (RouteType.unicast, "unicast"), (.local, "local"), (.blackhole, "blackhole"),
        (.unreachable, "unreachable"), (.prohibit, "prohibit"), (.throw, "throw"), (RouteType(rawValue: 3),
                                                                                    "broadcast"),
        (RouteType(rawValue: 4), "anycast"), (RouteType(rawValue: 5), "multicast"), (RouteType(rawValue: 10),
                                                                                     "type 10"),
    ])
    func routeTypes(type: RouteType, description: String) {
        #expect(type.rejectsTraffic == [RouteType.blackhole, .unreachable, .prohibit, .throw].contains(type))
        #expect(type.deliversLocally == [RouteType.local, .anycast].contains(type))
        #expect(type.sendsThroughInterface == [RouteType.unicast, .broadcast, .multicast].contains(type))
        #expect(type.description == description)
    }
}
