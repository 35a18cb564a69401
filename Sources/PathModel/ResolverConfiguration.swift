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
