// SPDX-License-Identifier: Apache-2.0
// Pattern: detecting an IPv6-only (NAT64) network and DNS availability before
// choosing how to connect.
import Network

enum AddressFamilyPreference: Sendable {
    case dualStack
    case ipv4Only
    case ipv6Only
    case none
}

func addressFamilyPreference(for path: NWPath) -> AddressFamilyPreference {
    switch (path.supportsIPv4, path.supportsIPv6) {
    case (true, true): return .dualStack
    case (true, false): return .ipv4Only
    case (false, true): return .ipv6Only
    case (false, false): return .none
    }
}

func canResolveNames(_ path: NWPath) -> Bool {
    path.status == .satisfied && path.supportsDNS
}

func isLikelyNAT64(_ path: NWPath) -> Bool {
    path.status == .satisfied && path.supportsIPv6 && !path.supportsIPv4
}
