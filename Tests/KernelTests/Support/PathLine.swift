// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// Reading the fields of a path line (`{"type":"path",...}`) as JSONSerialization returns them.
enum PathLine {
    static func isPath(_ line: [String: Any]) -> Bool {
        line["type"] as? String == "path"
    }

    static func status(_ line: [String: Any]) -> String? {
        line["status"] as? String
    }

    static func unsatisfiedReason(_ line: [String: Any]) -> String? {
        line["unsatisfiedReason"] as? String
    }

    static func interfaceNames(_ line: [String: Any]) -> [String] {
        let interfaces = line["interfaces"] as? [[String: Any]] ?? []
        return interfaces.compactMap { $0["name"] as? String }
    }

    /// Satisfied, through `interface`, with IPv4.
    static func satisfied(through interface: String) -> ([String: Any]) -> Bool {
        { line in
            isPath(line) && status(line) == "satisfied"
                && interfaceNames(line).contains(interface)
                && line["supportsIPv4"] as? Bool == true
        }
    }

    /// The path's network is settled: identified, or none, or with nothing to be
    /// identified by (no anchor: a link-scope default route has no gateway). pathd
    /// resolves the veth topology's gateway just after it starts, and that change of
    /// network is a line of its own (docs/ARCHITECTURE.md, "Network identity"): a test
    /// that counts the lines after the first waits for this.
    static func hasSettledNetwork(_ line: [String: Any]) -> Bool {
        guard let network = line["network"] as? [String: Any] else { return true }
        return network["state"] as? String == "identified" || network["anchor"] is NSNull
    }

    /// Satisfied through `interface`, its network settled (`hasSettledNetwork`).
    static func settled(through interface: String) -> ([String: Any]) -> Bool {
        { satisfied(through: interface)($0) && hasSettledNetwork($0) }
    }

    /// Unsatisfied, for `reason` when one is given.
    static func unsatisfied(reason: String? = nil) -> ([String: Any]) -> Bool {
        { line in
            isPath(line) && status(line) == "unsatisfied"
                && (reason == nil || unsatisfiedReason(line) == reason)
        }
    }
}
