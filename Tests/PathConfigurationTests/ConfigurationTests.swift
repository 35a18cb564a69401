// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

@Suite("configuration: keys, values, merging of drop-ins")
struct ConfigurationTests {
    func parse(_ texts: (String, String)...) -> ConfigurationResult {
        Configuration.parse(texts.map { ConfigurationSource(name: $0.0, text: $0.1) })
    }

    @Test("no file at all is the built-in default")
    func noFiles() {
        let result = Configuration.parse([])
        #expect(result.isValid)
        #expect(result.diagnostics.isEmpty)
        #expect(result.configuration == .builtIn)
        #expect(result.configuration.policy.expensiveTypes == [.cellular])
    }

    @Test("every [Daemon] key")
    func daemonKeys() {
        let result = parse(("pathd.conf", """
            [Daemon]
            Socket=/run/p.sock
            LookupIPv4=192.0.2.7
            LookupIPv6=2001:db8::7
            MaxClients=12
            ClientQueueLimit=64K
            ReceiveBuffer=2M
            ResolvConf=/run/systemd/resolve/resolv.conf
            UpstreamResolvConf=/run/resolved-upstream.conf
            LogLevel=DEBUG
            """))
        #expect(result.diagnostics.isEmpty)
        let daemon = result.configuration.daemon
        #expect(daemon.socketPath == "/run/p.sock")
        #expect(daemon.lookupIPv4 == IPAddress("192.0.2.7"))
        #expect(daemon.lookupIPv6 == IPAddress("2001:db8::7"))
        #expect(daemon.maximumClients == 12)
        #expect(daemon.clientQueueLimitBytes == 64 << 10)
        #expect(daemon.receiveBufferBytes == 2 << 20)
        #expect(daemon.resolvConfPath == "/run/systemd/resolve/resolv.conf")
        #expect(daemon.upstreamResolvConfPath == "/run/resolved-upstream.conf")
        #expect(daemon.logLevel == .debug)
    }

    @Test("value errors make the configuration invalid and name file, line and value")
    func valueErrors() {
        let result = parse(("pathd.conf", """
            [Daemon]
            MaxClients=0
            LookupIPv4=2001:db8::1
            Socket=relative.sock
            ReceiveBuffer=lots
            LogLevel=chatty
            ClientQueueLimit=1K
            UpstreamResolvConf=resolv.conf
            [Interface]
            Name=eth0
            Expensive=maybe
            SetType=modem
            Type=modem
            Name=!
            """))
        #expect(!result.isValid)
        #expect(result.diagnostics.map(\.description) == [
            "pathd.conf:2: MaxClients= expects a number from 1 to 1000000, got \"0\"",
            "pathd.conf:3: LookupIPv4= expects an IPv4 address, got \"2001:db8::1\"",
            "pathd.conf:4: Socket= expects an absolute path of at most 107 bytes, got \"relative.sock\"",
            "pathd.conf:5: ReceiveBuffer= expects a size from 4K to 1G (bytes, or with a K, M or G suffix), got " +
            "\"lots\"",
            "pathd.conf:6: LogLevel= expects error, warning, notice, info, debug, got \"chatty\"",
            "pathd.conf:7: ClientQueueLimit= expects a size from 4K to 1G (bytes, or with a K, M or G suffix), got " +
            "\"1K\"",
            "pathd.conf:8: UpstreamResolvConf= expects an absolute path, got \"resolv.conf\"",
            "pathd.conf:11: Expensive= expects a boolean (yes, no, true, false, on, off, 1, 0), got \"maybe\"",
            "pathd.conf:12: SetType= expects one of \(InterfaceType.writtenNamesDescription), got \"modem\"",
            "pathd.conf:13: Type= expects types among \(InterfaceType.writtenNamesDescription) (each may start with " +
            "!), "
                + "got \"modem\"",
            "pathd.conf:14: Name= has a lone \"!\"; write !PATTERN with no space",
        ])
    }

    @Test("unknown sections and keys are warnings, with a hint for a wrong case")
    func warnings() {
        let result = parse(("a.conf", """
            [Daemon]
            maxclients=3
            Colour=blue
            [interface]
            Name=eth0
            [Link]
            """))
        #expect(result.isValid)
        #expect(result.diagnostics.map(\.description) == [
            "a.conf:2: unknown key maxclients= in [Daemon] (did you mean MaxClients=?); ignored",
            "a.conf:3: unknown key Colour= in [Daemon]; ignored",
            "a.conf:4: unknown section [interface] (did you mean [Interface]?); ignored",
            "a.conf:6: unknown section [Link]; ignored",
        ])
        #expect(result.configuration.daemon.maximumClients == 1024)
        #expect(result.configuration.policy.rules.isEmpty)
    }

    @Test("booleans as systemd spells them")
    func booleans() {
        for text in ["yes", "true", "on", "1", "YES", "True"] { #expect(SettingText.boolean(text) == true) }
        for text in ["no", "false", "off", "0", "No", "OFF"] { #expect(SettingText.boolean(text) == false) }
        for text in ["", "y", "2", "maybe", "yes please"] { #expect(SettingText.boolean(text) == nil) }
    }

    @Test("drop-ins: later [Daemon] keys win, [Interface] sections accumulate in order, empty resets")
    func merge() {
        let result = parse(
            ("pathd.conf", "[Daemon]\nMaxClients=10\nLogLevel=debug\n[Interface]\nName=wwan*\nExpensive=yes\n"),
            ("pathd.conf.d/10-a.conf", "[Daemon]\nMaxClients=20\n[Interface]\nName=wwan0\nExpensive=no\n"),
            ("pathd.conf.d/20-b.conf", "[Daemon]\nLogLevel=\n"))
        #expect(result.isValid)
        let configuration = result.configuration
        #expect(configuration.daemon.maximumClients == 20)
        #expect(configuration.daemon.logLevel == .info)
        #expect(configuration.policy.rules.map(\.origin) == ["pathd.conf:4", "pathd.conf.d/10-a.conf:3"])
        #expect(configuration.policy.rules.map(\.stated.isExpensive) == [true, false])
    }

    @Test("an error in one drop-in invalidates the whole configuration")
    func errorInDropIn() {
        let result = parse(("pathd.conf", "[Daemon]\nMaxClients=10\n"),
                           ("pathd.conf.d/x.conf", "[Daemon]\nMaxClients=-1\n"))
        #expect(!result.isValid)
        #expect(result.diagnostics.errors.map(\.file) == ["pathd.conf.d/x.conf"])
    }

    @Test("repeated Name= lines accumulate; an empty one resets")
    func nameLists() {
        let result = parse(("f", "[Interface]\nName=a*\nName=!ab b\n[Interface]\nName=x\nName=\nName=y\n"))
        let rules = result.configuration.policy.rules
        #expect(rules[0].match.name.terms == ["a*", "b", "!ab"])
        #expect(rules[1].match.name.terms == ["y"])
    }

    @Test("the rendered INI parses back to the same configuration")
    func renderRoundTrip() {
        let result = parse(("pathd.conf", """
            [Daemon]
            Socket=/run/x.sock
            MaxClients=7
            [Interface]
            Name=usb* !usb9
            Kind=!veth
            SetType=cellular
            Constrained=yes
            [Interface]
            Type=wifi
            Expensive=no
            OnDemand=no
            Ignore=yes
            """))
        #expect(result.isValid)
        let text = result.configuration.renderedINI(header: ["Effective configuration"])
        #expect(text.hasPrefix("# Effective configuration\n\n[Daemon]\nSocket=/run/x.sock\n"))
        #expect(text.contains("\n[Interface]\n# pathd.conf:4\nName=usb* " +
                              "!usb9\nKind=!veth\nConstrained=yes\nSetType=cellular\n"))
        let again = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
        #expect(again.diagnostics.isEmpty)
        var expected = result.configuration
        var actual = again.configuration
        for index in expected.policy.rules.indices { expected.policy.rules[index].origin = "" }
        for index in actual.policy.rules.indices { actual.policy.rules[index].origin = "" }
        #expect(actual == expected)
        #expect(Configuration.builtIn.renderedINI().contains("LookupIPv4=203.0.113.1\nLookupIPv6=2001:db8::1\n"))
    }

    @Test("hostile input: more [Interface] sections than the limit is one error, in linear time")
    func tooManySections() {
        let text = String(repeating: "[Interface]\nName=veth*\nExpensive=yes\n", count: 5000)
        let result = parse(("f", text))
        #expect(!result.isValid)
        #expect(result.diagnostics.map(\.description) == ["f:3073: more than 1024 [Interface] sections"])
        #expect(result.configuration.policy.rules.count == Configuration.maximumInterfaceSections)
    }

    @Test("hostile input: unknown sections by the thousand give bounded warnings")
    func manyUnknownSections() {
        let result = parse(("f", String(repeating: "[Bogus]\nKey=1\n", count: 10_000)))
        #expect(result.isValid)
        #expect(result.diagnostics.count == 65)
        #expect(result.diagnostics.last?.description == "f: 0 more errors and 9936 more warnings not shown")
    }

    @Test("hostile input: binary garbage is errors, never a crash")
    func binaryGarbage() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let result = parse(("f", String(decoding: bytes, as: UTF8.self)))
        #expect(result.diagnostics.count <= 2 * 65)
        let unterminated = parse(("f", "[Interface\nName=eth0\nExpensive=yes\n"))
        #expect(!unterminated.isValid)
        #expect(unterminated.configuration.policy.rules.isEmpty)
    }

    @Test("DaemonSettings.set: what pathd's flags go through; a bad value changes nothing")
    func setOneKey() {
        var settings = DaemonSettings()
        #expect(settings.set("Socket", to: "relative.sock")
                == .invalid(expectation: "an absolute path of at most 107 bytes"))
        #expect(settings.socketPath == nil)
        #expect(settings.set("LogLevel", to: "DEBUG") == .set)
        #expect(settings.logLevel == .debug)
        #expect(settings.set("ReceiveBuffer", to: "16M") == .set)
        #expect(settings.receiveBufferBytes == 16 << 20)
        #expect(settings.set("ReceiveBuffer", to: "") == .set)
        #expect(settings.receiveBufferBytes == DaemonSettings().receiveBufferBytes)
        #expect(settings.set("Colour", to: "blue") == .unknownKey)
    }
}

@Suite("the key tables of every section")
struct ConfigurationKeyTableTests {
    @Test("every [Daemon] key parses what it prints")
    func roundTrip() {
        let settings = DaemonSettings()
        for key in DaemonSettings.keys {
            var copy = DaemonSettings()
            let printed = key.render(settings)
            #expect(copy.set(key.name, to: printed) == .set, "\(key.name)=\(printed)")
            #expect(copy == settings, "\(key.name) changed the settings on a round trip")
        }
    }

    @Test("every key of every section takes its documented default and leaves the section at its defaults")
    func documentedDefaults() {
        func check<Section: ConfigurationSection & Equatable>(_ section: Section.Type) {
            let names = Section.keys.map { $0.name.lowercased() }
            #expect(Set(names).count == names.count, "two [\(Section.sectionName)] keys differ only in case")
            for key in Section.keys {
                var settings = Section.defaults
                #expect(settings.set(key.name, to: key.documentedDefault) == .set,
                        "\(key.name)=\(key.documentedDefault)")
                #expect(settings == Section.defaults, "\(key.name)=\(key.documentedDefault) is not the default")
                #expect(!key.summary.isEmpty && !key.summary.contains("\n"), "\(key.name): one line of description")
            }
        }
        check(DaemonSettings.self)
        check(ConnectivitySettings.self)
        check(InterfaceSettings.self)
        #expect(DaemonSettings.keys.first { $0.name == "ClientQueueLimit" }?.documentedDefault == "256K")
        #expect(ConnectivitySettings.keys.first { $0.name == "Interval" }?.documentedDefault == "5min")
    }

    @Test("a refused value changes nothing, whatever the section")
    func refusedValueChangesNothing() {
        var rule = InterfaceSettings()
        #expect(rule.set("Type", to: "wifi !modem") == .refused(
            "Type= expects types among \(InterfaceType.writtenNamesDescription) (each may start with !), "
                + "got \"!modem\""))
        #expect(rule == InterfaceSettings())
        #expect(rule.set("Name", to: "eth* !") == .refused("Name= has a lone \"!\"; write !PATTERN with no space"))
        #expect(rule == InterfaceSettings())
        #expect(rule.set("Name", to: "eth* !eth9") == .set)
        #expect(rule.renderedLines == ["Name=eth* !eth9"])
    }

    @Test("a reload takes only the keys it can apply; the rest keep their running values")
    func reloadKeepsRestartOnlyKeys() {
        let running = DaemonSettings()
        var next = DaemonSettings()
        #expect(next.set("MaxClients", to: "7") == .set)
        #expect(next.set("LookupIPv4", to: "198.51.100.1") == .set)
        #expect(next.set("Socket", to: "/run/other.sock") == .set)
        let applied = running.reloaded(from: next)
        #expect(applied.maximumClients == 7)
        #expect(applied.lookupIPv4 == running.lookupIPv4)
        #expect(applied.socketPath == nil)
    }
}
