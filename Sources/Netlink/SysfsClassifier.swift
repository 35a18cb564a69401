// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import SystemCalls

/// Classifies links with `InterfaceClassifier`, reading what sysfs says about the
/// medium: `DEVTYPE=` in `<root>/class/net/<name>/uevent` and whether
/// `<root>/class/net/<name>/wireless` or `/phy80211` exists; and names the driver of the
/// link's device (`DRIVER=` in `<root>/class/net/<name>/device/uevent`), a hint about
/// the network (`NetworkHint.ofDriver`).
///
/// sysfs is read once per (ifindex, name): a NEWLINK flood (carrier flaps, statistics)
/// costs a dictionary lookup, a rename reads again. Not thread-safe: owned by the
/// monitor and used on its queue only.
final class SysfsClassifier {
    private struct SysfsFacts {
        var name: String
        var devType: String?
        var hasWirelessDirectory: Bool
        var driver: String?
    }

    private let root: String
    private let log: @Sendable (String) -> Void
    private var cache: [InterfaceIndex: SysfsFacts] = [:]

    init(sysfsRoot: String, log: @escaping @Sendable (String) -> Void) {
        self.root = sysfsRoot
        self.log = log
    }

    /// The medium of a link whose rtnetlink attributes are `link`.
    func classify(_ link: LinkAttributes) -> InterfaceType {
        let facts = sysfsFacts(index: link.index, name: link.name)
        return InterfaceClassifier.classify(InterfaceFacts(
            devType: facts.devType, hasWirelessDirectory: facts.hasWirelessDirectory,
            hardwareType: link.hardwareType, kind: link.kind))
    }

    /// The driver of the link's device; nil for a virtual link (no device).
    func driver(of link: LinkAttributes) -> String? {
        sysfsFacts(index: link.index, name: link.name).driver
    }

    /// Forgets a removed link (ifindexes are reused by later links).
    func forget(_ index: InterfaceIndex) {
        cache[index] = nil
    }

    private func sysfsFacts(index: InterfaceIndex, name: String) -> SysfsFacts {
        if let cached = cache[index], cached.name == name { return cached }
        let directory = "\(root)/class/net/\(name)"
        let uevent = readFile("\(directory)/uevent")
        let facts = SysfsFacts(
            name: name,
            devType: uevent.flatMap(InterfaceClassifier.devType(fromUevent:)),
            hasWirelessDirectory: exists("\(directory)/wireless") || exists("\(directory)/phy80211"),
            driver: readFile("\(directory)/device/uevent").flatMap {
                InterfaceClassifier.value(of: "DRIVER", inUevent: $0)
            })
        cache[index] = facts
        return facts
    }

    private func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The file's text; nil when it does not exist (the link may be gone already, or a
    /// test tree lacks it). Other failures are logged, then treated the same way:
    /// classification falls back to what rtnetlink says.
    private func readFile(_ path: String) -> String? {
        // sysfs attributes are small regular files (a page at most).
        switch RegularFile.readText(path, maximumBytes: 64 * 1024) {
        case .success(let text):
            return text
        case .failure(let problem):
            if !problem.isMissing { log("sysfs: \(path): \(problem)") }
            return nil
        }
    }
}
