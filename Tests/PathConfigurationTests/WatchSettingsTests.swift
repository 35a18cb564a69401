// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

@Suite("configuration: [Watch]")
struct WatchSettingsTests {
    func parse(_ text: String) -> ConfigurationResult {
        Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
    }

    @Test("Destination= takes addresses, a link-local one with its zone, and names; lines add, each host once")
    func destinations() throws {
        let result = parse("""
            [Watch]
            Destination=DB.example.org 192.0.2.10 fe80::1%eth0
            Destination=db.example.org 2001:db8::7
            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.configuration.watch.destinations == [
            .name("db.example.org"), .address(IPAddress("192.0.2.10")!, zone: nil),
            .address(IPAddress("fe80::1")!, zone: "eth0"), .address(IPAddress("2001:db8::7")!, zone: nil),
        ])
        #expect(result.configuration.renderedINI()
            .hasSuffix("[Watch]\nDestination=db.example.org 192.0.2.10 fe80::1%eth0 2001:db8::7\n"))
        let emptied = parse("[Watch]\nDestination=db.example.org\nDestination=\nDestination=192.0.2.1\n")
        #expect(emptied.configuration.watch.destinations == [.address(IPAddress("192.0.2.1")!, zone: nil)])
        #expect(Configuration.builtIn.watch.destinations.isEmpty)
    }

    @Test("what is neither an address nor a name, a zone on a routed address, and a 65th host are errors",
          arguments: ["under_score.example", "-lead.example", "1.2.3", "192.0.2.1%eth0", "a..b", "fe80::1%"])
    func refusals(word: String) {
        let result = parse("[Watch]\nDestination=ok.example \(word)\n")
        #expect(!result.isValid)
        #expect(result.diagnostics.errors.first?.message
            == "Destination= expects addresses or host names, got \"\(word)\"", "\(result.diagnostics)")
        #expect(result.configuration.watch.destinations.isEmpty, "nothing of a refused line is kept")
    }

    @Test("at most 64 hosts in all, over every line: the 65th distinct host is refused, named, with its line")
    func bound() {
        let hosts = (1...64).map { "h\($0).example" }
        #expect(parse("[Watch]\nDestination=\(hosts.joined(separator: " "))\n").isValid)
        let result = parse("[Watch]\nDestination=\(hosts.joined(separator: " "))\nDestination=one-more.example\n")
        #expect(!result.isValid)
        #expect(result.diagnostics.errors.map(\.description)
            == ["pathd.conf:3: Destination= names more than 64 hosts in all: \"one-more.example\" is the 65th"])
        // Repeats are no new hosts, however many; on one line, the host past the limit is
        // named even when the line goes on (with a word that is no host at all). A line
        // holds at most 16 KiB (INIParser.maximumLineLength).
        let repeated = Array(repeating: "h1.example", count: 1000) + hosts + ["h65.example", "not_a_host"]
        let long = parse("[Watch]\nDestination=\(repeated.joined(separator: " "))\n")
        #expect(long.diagnostics.errors.map(\.description)
            == ["pathd.conf:2: Destination= names more than 64 hosts in all: \"h65.example\" is the 65th"])
    }
}
