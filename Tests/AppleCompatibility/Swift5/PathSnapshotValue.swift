// SPDX-License-Identifier: Apache-2.0
// Pattern: copying a path into the app's own Sendable, Equatable value (for state
// stores and tests), every field included.
import Network

struct NetworkSnapshot: Equatable, Sendable {
    let status: NWPath.Status
    let unsatisfiedReason: NWPath.UnsatisfiedReason
    let interfaces: [NWInterface]
    let isExpensive: Bool
    let isConstrained: Bool
    let supportsIPv4: Bool
    let supportsIPv6: Bool
    let supportsDNS: Bool
    let gateways: [NWEndpoint]
    let localEndpoint: NWEndpoint?
    let remoteEndpoint: NWEndpoint?

    init(_ path: NWPath) {
        status = path.status
        unsatisfiedReason = path.unsatisfiedReason
        interfaces = path.availableInterfaces
        isExpensive = path.isExpensive
        isConstrained = path.isConstrained
        supportsIPv4 = path.supportsIPv4
        supportsIPv6 = path.supportsIPv6
        supportsDNS = path.supportsDNS
        gateways = path.gateways
        localEndpoint = path.localEndpoint
        remoteEndpoint = path.remoteEndpoint
    }

    var isUsable: Bool { status == .satisfied }
}

struct SnapshotHistory: Sendable {
    private(set) var snapshots: [NetworkSnapshot] = []

    mutating func record(_ path: NWPath) -> Bool {
        let snapshot = NetworkSnapshot(path)
        guard snapshot != snapshots.last else { return false }
        snapshots.append(snapshot)
        return true
    }
}
