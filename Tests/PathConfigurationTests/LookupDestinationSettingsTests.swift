// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

/// `LookupIPv4=` and `LookupIPv6=` stand for "the Internet": an address whose route is
/// this host, one link or a group would leave the path unsatisfied for good, so it is
/// refused where the value is read (pathd.conf, `--lookup-ipv4`, a reload), saying why.
@Suite("LookupIPv4= and LookupIPv6=")
struct LookupDestinationSettingsTests {
    @Test(arguments: [
        ("LookupIPv4", "127.0.0.1", "a loopback address (127.0.0.0/8)"),
        ("LookupIPv4", "127.1.2.3", "a loopback address (127.0.0.0/8)"),
        ("LookupIPv4", "0.0.0.0", "the unspecified address"),
        ("LookupIPv4", "224.0.0.1", "a multicast address (224.0.0.0/4)"),
        ("LookupIPv4", "239.255.255.250", "a multicast address (224.0.0.0/4)"),
        ("LookupIPv4", "169.254.169.254", "a link-local address (169.254.0.0/16)"),
        ("LookupIPv4", "255.255.255.255", "the broadcast address"),
        ("LookupIPv6", "::1", "the loopback address"),
        ("LookupIPv6", "::", "the unspecified address"),
        ("LookupIPv6", "ff02::1", "a multicast address (ff00::/8)"),
        ("LookupIPv6", "fe80::1", "a link-local address (fe80::/10)"),
        ("LookupIPv6", "::ffff:203.0.113.1", "an IPv4-mapped address (::ffff:0:0/96)"),
    ])
    func refusesAddressesThatAreNoInternetHost(key: String, value: String, why: String) {
        let family = key == "LookupIPv4" ? "IPv4" : "IPv6"
        let result = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: "[Daemon]\n\(key)=\(value)\n")])
        #expect(!result.isValid)
        #expect(result.diagnostics.map(\.description) == [
            "pathd.conf:2: \(key)= expects a unicast \(family) address that stands for the Internet, not \(why), "
                + "got \"\(value)\"",
        ])
        #expect(result.configuration.daemon.lookupDestinations == .standard)

        var settings = DaemonSettings()
        #expect(settings.set(key, to: value)
            == .invalid(expectation: "a unicast \(family) address that stands for the Internet, not \(why)"))
        #expect(settings == DaemonSettings(), "a refused value changes nothing")
    }

    /// Private, shared, documentation, reserved and global unicast addresses can all be on
    /// the way out (a corporate network, a lab): only the blocks above are refused.
    @Test(arguments: [
        ("LookupIPv4", "203.0.113.1"), ("LookupIPv4", "10.0.0.1"), ("LookupIPv4", "192.168.1.1"),
        ("LookupIPv4", "100.64.0.1"), ("LookupIPv4", "1.1.1.1"), ("LookupIPv4", "255.255.255.254"),
        ("LookupIPv4", "223.255.255.255"), ("LookupIPv4", "126.255.255.255"), ("LookupIPv4", "169.253.0.1"),
        ("LookupIPv6", "2001:db8::1"), ("LookupIPv6", "2606:4700:4700::1111"), ("LookupIPv6", "fd00::1"),
        ("LookupIPv6", "fec0::1"), ("LookupIPv6", "::2"), ("LookupIPv6", "64:ff9b::c000:201"),
    ])
    func acceptsOtherUnicastAddresses(key: String, value: String) throws {
        var settings = DaemonSettings()
        #expect(settings.set(key, to: value) == .set)
        let address = try #require(IPAddress(value))
        #expect((key == "LookupIPv4" ? settings.lookupIPv4 : settings.lookupIPv6) == address)
    }

    @Test("the wrong family or no address at all is still \"an IPv4 address\" / \"an IPv6 address\"")
    func wrongFamily() {
        var settings = DaemonSettings()
        #expect(settings.set("LookupIPv4", to: "::1") == .invalid(expectation: "an IPv4 address"))
        #expect(settings.set("LookupIPv6", to: "127.0.0.1") == .invalid(expectation: "an IPv6 address"))
        #expect(settings.set("LookupIPv4", to: "localhost") == .invalid(expectation: "an IPv4 address"))
    }

    @Test("the defaults themselves pass the rule")
    func defaultsAreInternetHosts() {
        #expect(LookupDestinations.standard.ipv4.notAnInternetHost == nil)
        #expect(LookupDestinations.standard.ipv6.notAnInternetHost == nil)
    }
}
