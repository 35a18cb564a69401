// SPDX-License-Identifier: Apache-2.0
/// What sysfs and rtnetlink say about a link's medium; gathered by the Netlink module
/// from `/sys/class/net/NAME` (the root is injected there), classified here.
public struct InterfaceFacts: Hashable, Sendable {
    /// `DEVTYPE=` from `/sys/class/net/NAME/uevent` (wlan, wwan, bridge, vlan, …).
    public var devType: String?
    /// `/sys/class/net/NAME/wireless` or `/sys/class/net/NAME/phy80211` exists.
    public var hasWirelessDirectory: Bool
    public var hardwareType: HardwareType
    /// IFLA_INFO_KIND (veth, bridge, wireguard, tun, …).
    public var kind: String?

    public init(devType: String? = nil, hasWirelessDirectory: Bool = false, hardwareType: HardwareType,
                kind: String? = nil) {
        self.devType = devType
        self.hasWirelessDirectory = hasWirelessDirectory
        self.hardwareType = hardwareType
        self.kind = kind
    }
}

public enum InterfaceClassifier {
    /// DEVTYPE=wlan or a wireless directory → wifi; DEVTYPE=wwan → cellular;
    /// ARPHRD_LOOPBACK → loopback; Ethernet with no link kind and no DEVTYPE (a
    /// physical NIC) → wiredEthernet; everything else (veth, bridge, tun, wireguard,
    /// ppp, vlan, …) → other.
    public static func classify(_ facts: InterfaceFacts) -> InterfaceType {
        if facts.devType == "wlan" || facts.hasWirelessDirectory { return .wifi }
        if facts.devType == "wwan" { return .cellular }
        if facts.hardwareType == .loopback { return .loopback }
        if facts.hardwareType == .ether && facts.kind == nil && facts.devType == nil { return .wiredEthernet }
        return .other
    }

    /// The value of `DEVTYPE=` in the text of a uevent file, if any.
    public static func devType(fromUevent text: String) -> String? {
        value(of: "DEVTYPE", inUevent: text)
    }

    /// The value of `KEY=` in the text of a uevent file (`DEVTYPE`, a device's `DRIVER`),
    /// if any and not empty.
    public static func value(of key: String, inUevent text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + "=") {
            let value = line.dropFirst(key.count + 1)
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }
}
