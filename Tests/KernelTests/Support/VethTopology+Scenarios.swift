// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// Set-ups that more than one kernel test starts from.
extension VethTopology {
    /// What a container host adds beside its uplink: a bridge br0 (172.31.255.1/24) with
    /// a container's veth ctr0 as its port, the container's end ctr0p (172.31.255.2/24)
    /// left in A. Links and addresses that carry no route the lookups take.
    func addContainerBridge() throws {
        try a.ip("link", "add", "br0", "type", "bridge")
        try a.ip("address", "add", "172.31.255.1/24", "dev", "br0")
        try a.ip("link", "set", "br0", "up")
        try a.ip("link", "add", "ctr0", "type", "veth", "peer", "name", "ctr0p")
        try a.ip("link", "set", "ctr0", "master", "br0")
        try a.ip("link", "set", "ctr0", "up")
        try a.ip("link", "set", "ctr0p", "up")
        try a.ip("address", "add", "172.31.255.2/24", "dev", "ctr0p")
    }

    /// No IPv4 at all, and IPv6 with only link-local addresses: a default route via
    /// vB's fe80::1, and nothing global to send from.
    func useLinkLocalIPv6Only() throws {
        try removeIPv4()
        try b.ip("address", "add", "fe80::1/64", "dev", "vB", "nodad")
        try a.ip("-6", "route", "add", "default", "via", "fe80::1", "dev", "vA")
    }
}
