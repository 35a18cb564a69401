// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The `[Watch]` section: the hosts whose route pathd follows for its metrics, as a route
/// subscription would (pathd.conf(5), pathd(8) METRICS). Empty by default: pathd watches
/// nothing of its own accord. Defaults are written here and nowhere else.
public struct WatchSettings: Hashable, Sendable, ConfigurationSection {
    /// One host as written: an address (a link-local one with its zone) or a name.
    public enum Host: Hashable, Sendable, CustomStringConvertible {
        case address(IPAddress, zone: String?)
        /// Resolved by pathd with the system resolver, at start, on reload and whenever
        /// the default path changes.
        case name(String)

        /// "db.example.org", "192.0.2.10", "fe80::1%eth0": as written, as the metrics name it.
        public var description: String {
            switch self {
            case .address(let address, let zone): zone.map { "\(address)%\($0)" } ?? address.description
            case .name(let name): name
            }
        }
    }

    /// `Destination=`: the hosts, in the order written, each once.
    public var destinations: [Host] = []

    public init() {}

    /// Hosts at most: each costs a route lookup per kernel change and a few series.
    public static let maximumDestinations = 64

    public static let sectionName = "Watch"
    public static var defaults: WatchSettings { WatchSettings() }
}

extension WatchSettings {
    /// Every `[Watch]` key, in the order `--check-config` prints them.
    public static let keys: [ConfigurationKey<WatchSettings>] = [
        ConfigurationKey("Destination", .hosts, range: "at most \(maximumDestinations) in all", isReloadable: true,
                         "hosts whose route pathd watches and reports in its metrics, space-separated: "
                             + "addresses (a link-local one with its zone, fe80::1%eth0) or names; "
                             + "each line adds to the list, an empty value empties it",
                         parse: { settings, value in
                             // Linear in the line: each word is checked against a set of
                             // the hosts so far, and the line is read word by word and
                             // refused at the host past the limit, not at its end.
                             var added = settings.destinations
                             var seen = Set(added)
                             var rest = Substring(value)
                             while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
                                 let end = rest[start...].firstIndex(where: \.isWhitespace) ?? rest.endIndex
                                 let word = rest[start..<end]
                                 rest = rest[end...]
                                 guard let host = host(String(word)) else {
                                     return .refused("Destination= expects addresses or host names, got \"\(word)\"")
                                 }
                                 guard seen.insert(host).inserted else { continue }
                                 guard added.count < maximumDestinations else {
                                     return .refused("Destination= names more than \(maximumDestinations) hosts in "
                                         + "all: \"\(word)\" is the \(maximumDestinations + 1)th")
                                 }
                                 added.append(host)
                             }
                             settings.destinations = added
                             return .set
                         },
                         reset: { $0.destinations = [] },
                         print: { $0.destinations.map(\.description).joined(separator: " ") }),
    ]

    /// An address (its zone only where `route` takes one) or a name as DNS writes them
    /// (`DomainName`).
    static func host(_ word: String) -> Host? {
        if let (address, zone) = RouteZone.split(word) {
            guard zone == nil || RouteZone.refusal(zoning: address) == nil else { return nil }
            return .address(address, zone: zone)
        }
        guard !word.hasSuffix("."), let name = DomainName.canonical(word) else { return nil }
        return .name(name)
    }
}
