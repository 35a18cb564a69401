// SPDX-License-Identifier: Apache-2.0
// Pattern: an app's own address type conforming to `IPAddress` (either family in one
// enum) kept in its `Sendable` values, and generic code that parses any `IPAddress`
// from text through the protocol's `init?(_:)`.
import FoundationEssentials
import Network

enum EitherAddress: IPAddress, Hashable {
    case v4(IPv4Address)
    case v6(IPv6Address)

    private var wrapped: any IPAddress {
        switch self {
        case .v4(let address): address
        case .v6(let address): address
        }
    }

    init?(_ string: String) {
        if let address = IPv4Address(string) {
            self = .v4(address)
        } else if let address = IPv6Address(string) {
            self = .v6(address)
        } else {
            return nil
        }
    }

    init?(_ rawValue: Data, _ interface: NWInterface?) {
        if let address = IPv4Address(rawValue, interface) {
            self = .v4(address)
        } else if let address = IPv6Address(rawValue, interface) {
            self = .v6(address)
        } else {
            return nil
        }
    }

    var rawValue: Data { wrapped.rawValue }
    var interface: NWInterface? { wrapped.interface }
    var isLoopback: Bool { wrapped.isLoopback }
    var isLinkLocal: Bool { wrapped.isLinkLocal }
    var isMulticast: Bool { wrapped.isMulticast }
}

/// Sendable because `IPAddress` is: no `@unchecked` needed for the enum it stores.
struct ResolverEntry: Sendable, Hashable {
    let address: EitherAddress
    let prefixLength: UInt8
}

func parseAll<Address: IPAddress>(_ texts: [String], as _: Address.Type) -> [Address] {
    texts.compactMap { Address($0) }
}

func resolverEntries(from texts: [String]) -> [ResolverEntry] {
    let v4 = parseAll(texts, as: IPv4Address.self).map { ResolverEntry(address: .v4($0), prefixLength: 32) }
    let v6 = parseAll(texts, as: IPv6Address.self).map { ResolverEntry(address: .v6($0), prefixLength: 128) }
    return v4 + v6
}
