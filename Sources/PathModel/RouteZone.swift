// SPDX-License-Identifier: Apache-2.0
/// The zone of a link-scoped IPv6 address (RFC 4007 §11: the "eth0" of "fe80::1%eth0"):
/// the interface the address is on, by name or by index in decimal, as getaddrinfo(3)
/// reads it. fe80::/64 is on every link, so without a zone the kernel takes the first of
/// those equal routes; with one, the `route` request asks through that interface.
public enum RouteZone {
    /// Whether `zone` can name an interface: an index in decimal, or a name as
    /// `dev_valid_name` (net/core/dev.c) allows it: 1 to 15 bytes, not "." or "..", no
    /// "/", ":" or whitespace.
    public static func isValid(_ zone: String) -> Bool {
        let bytes = Array(zone.utf8)
        guard !bytes.isEmpty, bytes.count < 16, zone != ".", zone != ".." else { return false }
        return !bytes.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ":") || $0 <= 0x20 || $0 == 0x7F }
    }

    /// "fe80::1%eth0" as the address and its zone; "198.51.100.7" with no zone; nil when
    /// the text before "%" is no address or the zone is empty or not a valid name. Whether
    /// the address takes a zone at all is the `route` request's to say.
    public static func split(_ text: String) -> (address: IPAddress, zone: String?)? {
        guard let percent = text.firstIndex(of: "%") else { return IPAddress(text).map { ($0, nil) } }
        let zone = String(text[text.index(after: percent)...])
        guard let address = IPAddress(String(text[..<percent])), isValid(zone) else { return nil }
        return (address, zone)
    }

    /// Why `destination` takes no zone; nil when it does. Only a link-scoped IPv6 address
    /// (`IPAddress.isLinkScoped`) has one: elsewhere the routes choose the interface, and
    /// a lookup through a named interface would answer another question (IPv4's then
    /// assumes every address is on that link).
    public static func refusal(zoning destination: IPAddress) -> String? {
        if destination.family == .ipv6 && destination.isLinkScoped { return nil }
        return "a zone (interface) applies to a link-local IPv6 destination only (fe80::/10, or multicast of "
            + "interface- or link-local scope such as ff02::1): "
            + "the routes choose the interface for \(destination)"
    }
}

extension Snapshot {
    /// The link a zone names: the link of that name, else the link of that index
    /// (glibc's `__inet6_scopeid_pton` order); nil when none is known.
    public func link(zone: String) -> Link? {
        if let named = links.values.first(where: { $0.name == zone }) { return named }
        guard zone.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Int32(zone) else { return nil }
        return links[InterfaceIndex(rawValue: number)]
    }
}
