// SPDX-License-Identifier: Apache-2.0
/// The kind of medium an interface is, as NWInterface.InterfaceType defines it.
///
/// A type says nothing about cost: "expensive" and "constrained" are policy (see
/// `Policy`), and cellular is only expensive by default.
///
/// Open (docs/PROTOCOL.md, "Version rule"): a newer pathd may name a type this version
/// does not know; pathd's own configuration and criteria accept only `allCases`.
public enum InterfaceType: OpenEnumeration {
    case wifi
    case cellular
    case wiredEthernet
    case loopback
    case other
    /// A type a newer pathd sent, by its name (Apple's names see it as `.other`).
    case unrecognized(String)

    public static let allCases: [InterfaceType] = [.wifi, .cellular, .wiredEthernet, .loopback, .other]

    public var rawValue: String {
        switch self {
        case .wifi: "wifi"
        case .cellular: "cellular"
        case .wiredEthernet: "wiredEthernet"
        case .loopback: "loopback"
        case .other: "other"
        case .unrecognized(let name): name
        }
    }
}

extension InterfaceType {
    /// The names a person may write for a type, one table for pathctl's options and
    /// pathd.conf(5)'s `Type=` and `SetType=`, each compared without regard to case: the
    /// protocol's name of every known type, then the everyday words `wired` and
    /// `ethernet` for wiredEthernet. Output always uses the protocol's name; the protocol
    /// itself takes only that, exactly (`init?(known:)`, docs/PROTOCOL.md).
    public static let writtenNames: [(name: String, value: InterfaceType)] =
        allCases.map { ($0.rawValue, $0) } + [("wired", .wiredEthernet), ("ethernet", .wiredEthernet)]

    /// The known type `text` names in one of `writtenNames`, in any case; nil otherwise.
    public init?(written text: String) {
        let folded = text.lowercased()
        guard let match = Self.writtenNames.first(where: { $0.name.lowercased() == folded }) else { return nil }
        self = match.value
    }

    /// `writtenNames` for a message or a help text: "wifi, cellular, wiredEthernet,
    /// loopback, other, in any case (also wired or ethernet for wiredEthernet)".
    public static var writtenNamesDescription: String {
        knownNames + ", in any case (also \(aliasesDescription))"
    }

    /// The names beyond the protocol's: "wired or ethernet for wiredEthernet".
    public static var aliasesDescription: String {
        allCases.compactMap { type -> String? in
            let others = writtenNames.filter { $0.value == type && $0.name != type.rawValue }.map(\.name)
            return others.isEmpty ? nil : others.joined(separator: " or ") + " for " + type.rawValue
        }.joined(separator: "; ")
    }
}

/// One interface as a path lists it.
public struct Interface: Hashable, Sendable {
    public var name: String
    public var index: InterfaceIndex
    public var type: InterfaceType
    /// It carries traffic inside other traffic (WireGuard, tun, GRE, PPP; `Link.isTunnel`):
    /// the path then also uses its underlay, the first non-tunnel interface after it.
    public var isTunnel: Bool
    /// The network the interface is on (`LinkNetwork`); nil when pathd identifies no
    /// networks (no key) or from a daemon older than network identity.
    public var network: LinkNetwork?
    /// The captive portal's URI the network announced (DHCP option 114, a router
    /// advertisement's option 37: RFC 8910), from its hints (`Snapshot.hints`); nil when
    /// it announced none.
    public var captivePortal: String?

    public init(name: String, index: InterfaceIndex, type: InterfaceType, isTunnel: Bool = false,
                network: LinkNetwork? = nil, captivePortal: String? = nil) {
        self.name = name
        self.index = index
        self.type = type
        self.isTunnel = isTunnel
        self.network = network
        self.captivePortal = captivePortal
    }
}
