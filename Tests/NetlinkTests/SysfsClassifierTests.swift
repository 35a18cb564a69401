// SPDX-License-Identifier: Apache-2.0
import CLinux
import Foundation
import PathModel
import Testing
@testable import Netlink

/// A fake `/sys/class/net` in a temporary directory, removed afterwards.
private final class FakeSysfs {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pathd-sysfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit {
        do {
            try FileManager.default.removeItem(at: root)
        } catch {
            Issue.record("FakeSysfs: cannot remove \(root.path): \(error)")
        }
    }

    func link(_ name: String, uevent: String? = nil, directories: [String] = []) throws {
        let directory = root.appendingPathComponent("class/net/\(name)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let uevent {
            try Data(uevent.utf8).write(to: directory.appendingPathComponent("uevent"))
        }
        for sub in directories {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub),
                                                    withIntermediateDirectories: true)
        }
    }
}

private func attributes(_ index: Int32, _ name: String, hardwareType: HardwareType = .ether,
                        kind: String? = nil) -> LinkAttributes {
    LinkAttributes(index: InterfaceIndex(rawValue: index), name: name, flags: [.up], operState: .up,
                   hardwareType: hardwareType, kind: kind)
}

@Suite struct SysfsClassifierTests {
    @Test func classifiesFromAFakeTree() throws {
        let sysfs = try FakeSysfs()
        try sysfs.link("wlan0", uevent: "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=3\n")
        try sysfs.link("wlp2s0", uevent: "INTERFACE=wlp2s0\n", directories: ["phy80211"])
        try sysfs.link("wlx0", uevent: "INTERFACE=wlx0\n", directories: ["wireless"])
        try sysfs.link("wwan0", uevent: "DEVTYPE=wwan\nINTERFACE=wwan0\n")
        try sysfs.link("eth0", uevent: "INTERFACE=eth0\nIFINDEX=2\n")
        try sysfs.link("veth0", uevent: "INTERFACE=veth0\n")
        try sysfs.link("lo", uevent: "INTERFACE=lo\n")
        let classifier = SysfsClassifier(sysfsRoot: sysfs.root.path, log: { _ in })

        #expect(classifier.classify(attributes(3, "wlan0")) == .wifi)
        #expect(classifier.classify(attributes(4, "wlp2s0")) == .wifi)
        #expect(classifier.classify(attributes(5, "wlx0")) == .wifi)
        #expect(classifier.classify(attributes(6, "wwan0", hardwareType: HardwareType(rawValue: 519))) == .cellular)
        #expect(classifier.classify(attributes(2, "eth0")) == .wiredEthernet)
        #expect(classifier.classify(attributes(7, "veth0", kind: "veth")) == .other)
        #expect(classifier.classify(attributes(1, "lo", hardwareType: .loopback)) == .loopback)
        // A link sysfs does not know (gone already) falls back on rtnetlink facts.
        #expect(classifier.classify(attributes(8, "ghost0")) == .wiredEthernet)
    }

    @Test func cachesPerIndexAndNameAndRereadsOnRename() throws {
        let sysfs = try FakeSysfs()
        try sysfs.link("eth0", uevent: "INTERFACE=eth0\n")
        try sysfs.link("wlan0", uevent: "DEVTYPE=wlan\n")
        let classifier = SysfsClassifier(sysfsRoot: sysfs.root.path, log: { _ in })
        #expect(classifier.classify(attributes(2, "eth0")) == .wiredEthernet)

        // Same index and name: the cache answers, sysfs is not read again.
        try sysfs.link("eth0", directories: ["wireless"])
        #expect(classifier.classify(attributes(2, "eth0")) == .wiredEthernet)

        // Renamed: read again.
        #expect(classifier.classify(attributes(2, "wlan0")) == .wifi)

        // Forgotten (RTM_DELLINK): read again.
        classifier.forget(InterfaceIndex(rawValue: 2))
        #expect(classifier.classify(attributes(2, "eth0")) == .wifi)
    }
}

@Suite struct RouteLookupMappingTests {
    @Test func mapsKernelErrors() {
        #expect(RouteLookupRequest.lookup(forErrno: ENETUNREACH) == .noRoute)
        #expect(RouteLookupRequest.lookup(forErrno: EHOSTUNREACH) == .rejected(.unreachable))
        #expect(RouteLookupRequest.lookup(forErrno: EACCES) == .rejected(.prohibit))
        #expect(RouteLookupRequest.lookup(forErrno: EINVAL) == .rejected(.blackhole))
        #expect(RouteLookupRequest.lookup(forErrno: ENODEV) == .failed(errno: ENODEV))
    }

    @Test func mapsLibnlAndErrnoCodesInOnePlace() {
        guard case .overrun = NetlinkStatus(libnl: -NLE_NOMEM) else { Issue.record("-NLE_NOMEM"); return }
        guard case .overrun = NetlinkStatus(errno: .noBufferSpace) else { Issue.record("ENOBUFS"); return }
        guard case .wouldBlock = NetlinkStatus(errno: .wouldBlock) else { Issue.record("EAGAIN"); return }
        guard case .interrupted = NetlinkStatus(libnl: -NLE_INTR) else { Issue.record("-NLE_INTR"); return }
        guard case .ok(3) = NetlinkStatus(libnl: 3) else { Issue.record("3"); return }
    }
}
