// SPDX-License-Identifier: Apache-2.0
/// The part of resolv.conf(5) that pathd reads: the `nameserver` lines.
public enum ResolverConfiguration {
    /// The nameserver addresses named in the text of a resolv.conf, in order. Comments
    /// start with `#` or `;`; keywords are matched at the start of a line, as the
    /// resolver does.
    public static func nameservers(in text: String) -> [String] {
        var servers: [String] = []
        // `isNewline`, not `== "\n"`: a CRLF pair is one Character, equal to neither "\n" nor "\r".
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == "nameserver" else { continue }
            let value = fields[1]
            if value.hasPrefix("#") || value.hasPrefix(";") { continue }
            servers.append(String(value))
        }
        return servers
    }
}

/// systemd-resolved: when resolv.conf names only its local stub, the stub answers
/// whether or not resolved has any server to ask, so "a nameserver is configured" says
/// nothing. resolved writes the servers it forwards to into its own resolv.conf
/// (/run/systemd/resolve/resolv.conf, systemd-resolved.service(8)); that file decides.
/// Other local forwarders (dnsmasq, unbound, NetworkManager's dnsmasq on 127.0.1.1) keep
/// no such file at a known place: for them a configured nameserver is all pathd knows.
extension ResolverConfiguration {
    /// The addresses of resolved's stub listeners: 127.0.0.53 (DNSStubListener=) and
    /// 127.0.0.54 (the proxy stub), resolved.conf(5). (127.0.0.53 = 0x7F00_0035.)
    public static let resolvedStubAddresses: Set<IPAddress> = [.v4(0x7F00_0035), .v4(0x7F00_0036)]

    /// Whether `nameservers` (from resolv.conf) are resolved's stub and nothing else.
    public static func namesOnlyResolvedStub(_ nameservers: [String]) -> Bool {
        !nameservers.isEmpty && nameservers.allSatisfy(isResolvedStub)
    }

    /// Whether DNS has a server to ask: resolv.conf names one that is not resolved's
    /// stub; or it names only the stub, and resolved's own resolv.conf (`upstream`, nil
    /// when it could not be read) names a server other than a stub.
    public static func isConfigured(nameservers: [String], upstream: [String]?) -> Bool {
        guard namesOnlyResolvedStub(nameservers) else { return !nameservers.isEmpty }
        return (upstream ?? []).contains { !isResolvedStub($0) }
    }

    private static func isResolvedStub(_ text: String) -> Bool {
        IPAddress(text).map(resolvedStubAddresses.contains) ?? false
    }
}
