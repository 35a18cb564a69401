// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

struct ClassifierCase: Sendable, CustomTestStringConvertible {
    var name: String
    var facts: InterfaceFacts
    var type: InterfaceType
    var testDescription: String { name }
}

private let none = HardwareType(rawValue: 65534)
private let ppp = HardwareType(rawValue: 512)

@Suite("InterfaceClassifier")
struct InterfaceClassifierTests {
    @Test(arguments: [
        ClassifierCase(name: "DEVTYPE=wlan", facts: InterfaceFacts(devType: "wlan", hardwareType: .ether), type: .wifi),
        ClassifierCase(name: "wireless directory",
                       facts: InterfaceFacts(hasWirelessDirectory: true, hardwareType: .ether),
                       type: .wifi),
        ClassifierCase(name: "wireless directory wins over a kind",
                       facts: InterfaceFacts(hasWirelessDirectory: true, hardwareType: .ether,
                                             kind: "macvlan"), type: .wifi),
        ClassifierCase(name: "DEVTYPE=wwan", facts: InterfaceFacts(devType: "wwan", hardwareType: none),
                       type: .cellular),
        ClassifierCase(name: "DEVTYPE=wwan on Ethernet framing",
                       facts: InterfaceFacts(devType: "wwan", hardwareType: .ether),
                       type: .cellular),
        ClassifierCase(name: "loopback", facts: InterfaceFacts(hardwareType: .loopback), type: .loopback),
        ClassifierCase(name: "physical NIC", facts: InterfaceFacts(hardwareType: .ether), type: .wiredEthernet),
        ClassifierCase(name: "veth", facts: InterfaceFacts(hardwareType: .ether, kind: "veth"), type: .other),
        ClassifierCase(name: "bridge", facts: InterfaceFacts(devType: "bridge", hardwareType: .ether, kind: "bridge"),
                       type: .other),
        ClassifierCase(name: "DEVTYPE only (vlan)", facts: InterfaceFacts(devType: "vlan", hardwareType: .ether),
                       type: .other),
        ClassifierCase(name: "wireguard", facts: InterfaceFacts(hardwareType: none, kind: "wireguard"), type: .other),
        ClassifierCase(name: "tun", facts: InterfaceFacts(hardwareType: none, kind: "tun"), type: .other),
        ClassifierCase(name: "ppp", facts: InterfaceFacts(hardwareType: ppp), type: .other),
    ])
    func classifies(_ testCase: ClassifierCase) {
        #expect(InterfaceClassifier.classify(testCase.facts) == testCase.type)
    }

    @Test(arguments: [
        ("INTERFACE=wlan0\nIFINDEX=3\nDEVTYPE=wlan\n", "wlan"),
        ("DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=4\n", "wwan"),
        ("INTERFACE=br0\nIFINDEX=5\nDEVTYPE=bridge", "bridge"),
        ("INTERFACE=eth0\nIFINDEX=2\n", nil),
        ("", nil),
        ("DEVTYPE=\n", nil),
        ("XDEVTYPE=wlan\n", nil),
        ("INTERFACE=x\nDEVTYPE=vlan\nDEVTYPE=wlan\n", "vlan"),
    ] as [(String, String?)])
    func devTypeFromUevent(text: String, devType: String?) {
        #expect(InterfaceClassifier.devType(fromUevent: text) == devType)
    }
}
