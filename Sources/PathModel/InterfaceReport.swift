// SPDX-License-Identifier: Apache-2.0
/// The daemon's view of one link, for the `interfaces` request and `pathctl interfaces`:
/// what the kernel said about it, what the policy makes of it, and whether it could
/// carry a path, with the reason when it could not. Derived from a snapshot and a
/// policy only, so it is a pure function like the evaluator.
public struct InterfaceReport: Hashable, Sendable {
    public var name: String
    public var index: InterfaceIndex
    /// The effective type: the administrator's `SetType=`, else the detected type.
    public var type: InterfaceType
    /// The rtnetlink link kind (veth, wireguard, tun, …), nil for plain hardware.
    public var kind: String?
    public var operState: OperState
    public var flags: LinkFlags
    /// In `Snapshot.addresses(of:)` order: IPv4 first, then by text.
    public var addresses: [InterfaceAddress]
    public var isExpensive: Bool
    public var isConstrained: Bool
    /// Which rules decided `isExpensive` and `isConstrained` (`CostSource`).
    public var isExpensiveSetBy: CostSource
    public var isConstrainedSetBy: CostSource
    /// The network the link is on; nil without carrier, or when pathd identifies none.
    public var network: LinkNetwork?
    /// The facts `network`'s ID was computed from: filled in for a privileged peer only
    /// (docs/ARCHITECTURE.md, "Network identity"), nil otherwise.
    public var networkFacts: NetworkFacts?
    /// Why the link cannot carry a path; nil when it can.
    public var unusableReason: UnusableReason?
    /// The latest connectivity check through this link (pathd fills it in from
    /// pathd-probe's reports; a snapshot knows nothing of it).
    public var connectivity: Connectivity

    public var isUsable: Bool { unusableReason == nil }

    public init(name: String, index: InterfaceIndex, type: InterfaceType, kind: String? = nil, operState: OperState,
                flags: LinkFlags, addresses: [InterfaceAddress] = [], isExpensive: Bool = false,
                isConstrained: Bool = false, isExpensiveSetBy: CostSource = .type,
                isConstrainedSetBy: CostSource = .type, network: LinkNetwork? = nil,
                networkFacts: NetworkFacts? = nil, unusableReason: UnusableReason? = nil,
                connectivity: Connectivity = .unknown) {
        self.name = name
        self.index = index
        self.type = type
        self.kind = kind
        self.operState = operState
        self.flags = flags
        self.addresses = addresses
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.isExpensiveSetBy = isExpensiveSetBy
        self.isConstrainedSetBy = isConstrainedSetBy
        self.network = network
        self.networkFacts = networkFacts
        self.unusableReason = unusableReason
        self.connectivity = connectivity
    }

    /// Why a link cannot carry a path: a code for programs, in the vocabulary of a
    /// path's `unsatisfiedReason` where the two meet (`noCarrier`, `dormant`,
    /// `noAddress`), and a short phrase for a person ("no carrier"). Open, as the
    /// protocol's other enumerations: a reason a newer daemon added is kept
    /// (`unrecognized`), and its phrase is its code.
    public enum UnusableReason: OpenEnumeration, CustomStringConvertible {
        /// `Ignore=` in the configuration: never a path.
        case ignored
        /// Loopback never makes a path satisfied.
        case loopback
        /// Not IFF_UP (`ip link set X down`).
        case adminDown
        /// IFF_DORMANT or operstate DORMANT (802.1X pending, a modem not yet online).
        case dormant
        /// Up but not running: no carrier, or an operstate other than UP/UNKNOWN; or a
        /// bridge, bond or team with no port up.
        case noCarrier
        /// Neither family has an address of the link's own the kernel would source
        /// traffic from beyond the link (`Snapshot.hasUsableAddress`).
        case noUsableAddress
        case unrecognized(String)

        public static let allCases: [UnusableReason] = [
            .ignored, .loopback, .adminDown, .dormant, .noCarrier, .noUsableAddress,
        ]

        /// The code (`noCarrier`).
        public var rawValue: String {
            switch self {
            case .ignored: "ignored"
            case .loopback: "loopback"
            case .adminDown: "adminDown"
            case .dormant: UnsatisfiedReason.dormant.rawValue
            case .noCarrier: UnsatisfiedReason.noCarrier.rawValue
            case .noUsableAddress: UnsatisfiedReason.noAddress.rawValue
            case .unrecognized(let code): code
            }
        }

        /// The phrase (`no carrier`); the code itself for a code this client does not know.
        public var explanation: String {
            switch self {
            case .adminDown: "admin down"
            case .noCarrier: "no carrier"
            case .noUsableAddress: "no usable address"
            case .ignored, .loopback, .dormant, .unrecognized: rawValue
            }
        }

        public var description: String { explanation }
    }
}
