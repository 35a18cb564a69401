// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// One HOST of `route`, `monitor --route` or `wait --route`, and what the system
/// resolver made of it: its addresses, and for a literal with a zone ("fe80::1%eth0")
/// that zone, sent as the request's `interface`.
struct RouteHost {
    /// Resolves a name: the system resolver (getaddrinfo), or a test's.
    typealias Resolver = (String) -> Result<[IPAddress], HostResolver.Failure>

    let host: String
    private let resolver: Resolver
    private(set) var addresses: Result<[IPAddress], HostResolver.Failure>
    private(set) var zone: String?
    /// Whether `host` is a name (resolved again by `resolve()`), not an address literal.
    let isName: Bool

    /// Resolved at once; an address literal needs no resolver, and its zone would be lost in one.
    init(_ host: String, resolver: @escaping Resolver = HostResolver.ipAddresses(of:)) {
        self.host = host
        self.resolver = resolver
        if let (literal, zone) = RouteZone.split(host) {
            addresses = .success([literal])
            self.zone = zone
            isName = false
        } else {
            addresses = resolver(host)
            isName = true
        }
    }

    /// Asks the resolver again (a name's addresses may change with the path).
    mutating func resolve() {
        if isName { addresses = resolver(host) }
    }

    /// The addresses; none when the name did not resolve (`unresolvedReason` says why).
    var resolved: [IPAddress] {
        switch addresses {
        case .success(let list): list
        case .failure: []
        }
    }

    /// Why the host has no address, for a person; nil when it has some.
    var unresolvedReason: String? { HostResolver.unresolvedReason(addresses) }

    /// "db.example.org (198.51.100.7)", or the literal alone when the host is one.
    func label(for address: IPAddress) -> String {
        let literal = zone.map { "\(address)%\($0)" } ?? address.description
        return host == literal ? host : "\(host) (\(literal))"
    }
}
