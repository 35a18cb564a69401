// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
@testable import pathctl
import PathModel
import Testing

@Suite("pathctl's command line")
struct PathctlCommandLineTests {
    @Test("every option takes both spellings, before or after the command")
    func spellings() throws {
        let separate = ["--socket", "/tmp/p.sock", "wait", "--timeout", "5", "--require-type", "wifi"]
        let joined = ["wait", "--require-type=wifi", "--socket=/tmp/p.sock", "--timeout=5"]
        for arguments in [separate, joined] {
            guard case .run(let verb, let global) = try PathctlCommandLine.parse(arguments),
                  let wait = verb as? WaitVerb else {
                Issue.record("\(arguments) is no wait")
                continue
            }
            #expect(global.socketPath == "/tmp/p.sock")
            #expect(wait.timeout == .seconds(5))
            #expect(wait.criteria.requiredInterfaceType == .wifi)
        }
    }

    @Test("interface types are matched without regard to case; wired and ethernet mean wiredEthernet",
          arguments: [("WiFi", InterfaceType.wifi), ("CELLULAR", .cellular), ("wiredethernet", .wiredEthernet),
                      ("wiredEthernet", .wiredEthernet), ("wired", .wiredEthernet), ("Ethernet", .wiredEthernet),
                      ("loopback", .loopback), ("Other", .other)])
    func interfaceTypes(name: String, type: InterfaceType) throws {
        #expect(try parsed(StatusVerb.self, "status", "--require-type", name).criteria.requiredInterfaceType == type)
        #expect(try parsed(MonitorVerb.self, "monitor", "--prohibit-type", name).criteria.prohibitedInterfaceTypes
            == [type])
    }

    @Test("--not-expensive and --not-constrained are conditions of status, monitor and wait, and take no value")
    func conditions() throws {
        let status = try parsed(StatusVerb.self, "status", "--not-expensive")
        #expect(status.criteria == Criteria(prohibitExpensivePaths: true))
        let monitor = try parsed(MonitorVerb.self, "monitor", "--not-constrained", "--prohibit-type", "wifi")
        #expect(monitor.criteria == Criteria(prohibitedInterfaceTypes: [.wifi], prohibitConstrainedPaths: true))
        let wait = try parsed(WaitVerb.self, "wait", "--not-constrained", "--not-expensive")
        #expect(wait.criteria == Criteria(prohibitExpensivePaths: true, prohibitConstrainedPaths: true))
        #expect(try parsed(StatusVerb.self, "status").criteria == .any)
        #expect(usageError("status", "--not-expensive=yes") != nil)
        #expect(usageError("route", "--not-expensive", "example.org") != nil)
        #expect(usageError("monitor", "--not-expensive", "--route", "example.org")
            == "--not-expensive does not apply with --route")
    }

    /// pathd-path@.service's instance names: each word an option of hold without its
    /// dashes, `:` before a value, read by the same table as the options.
    @Test("hold takes its criteria as options or as words, one meaning; a word that is no option is a usage error")
    func holdCriteriaWords() throws {
        let words = try parsed(HoldVerb.self, "hold", "not-expensive", "prohibit-type:Cellular", "ipv6")
        let options = try parsed(HoldVerb.self, "hold", "--not-expensive", "--prohibit-type", "Cellular", "-6")
        #expect(words == options)
        #expect(words.criteria == Criteria(prohibitedInterfaceTypes: [.cellular], prohibitExpensivePaths: true))
        #expect(words.requirements == .ipv6)
        #expect(try parsed(HoldVerb.self, "hold", "--not-constrained", "not-expensive").criteria
            == Criteria(prohibitExpensivePaths: true, prohibitConstrainedPaths: true))
        #expect(try parsed(HoldVerb.self, "hold").criteria == .any)
        #expect(usageError("hold", "expensive")?.hasPrefix("hold: \"expensive\" is no criterion: one of "
            + "require-type:TYPE, prohibit-type:TYPE, not-expensive") == true)
        #expect(usageError("hold", "require-type") == "hold: \"require-type\" needs a value: require-type:TYPE")
        #expect(usageError("hold", "not-expensive:yes") == "hold: \"not-expensive:yes\" takes no value")
        #expect(usageError("hold", "require-type:pigeon")?.hasPrefix("--require-type expects one of") == true)
        #expect(usageError("hold", "not-expensive", "--not-expensive") == "--not-expensive given more than once")
        #expect(usageError("hold", "timeout:3") != nil, "only criteria: wait's --timeout is no word of hold")
    }

    @Test("--network and --not-network name networks by Name= or ID; a malformed NAME is a usage error")
    func networkConditions() throws {
        let status = try parsed(StatusVerb.self, "status", "--network", "home")
        #expect(status.criteria == Criteria(requiredNetwork: "home"))
        let monitor = try parsed(MonitorVerb.self, "monitor", "--not-network", "hotspot", "--not-network", "hotel")
        #expect(monitor.criteria == Criteria(prohibitedNetworks: ["hotspot", "hotel"]))
        let id = String(repeating: "0f", count: 16)
        let wait = try parsed(WaitVerb.self, "wait", "--network", id, "--not-expensive")
        #expect(wait.criteria == Criteria(prohibitExpensivePaths: true, requiredNetwork: id))
        #expect(usageError("status", "--network", "home wifi")?.hasPrefix("--network expects a network's Name=")
            == true)
        #expect(usageError("status", "--not-network", "") != nil)
        #expect(usageError("status", "--network", "home", "--not-network", "home")
            == "--network home and --not-network home contradict each other")
        #expect(usageError("status", "--network", "home", "--network", "office") != nil)
        #expect(usageError("monitor", "--network", "home", "--route", "example.org")
            == "--network does not apply with --route")
        // The template unit's instance words: pathd-path@network:home.service.
        let hold = try parsed(HoldVerb.self, "hold", "network:home", "not-network:hotspot")
        #expect(hold.criteria == Criteria(requiredNetwork: "home", prohibitedNetworks: ["hotspot"]))
    }

    @Test("a network pathd's configuration does not name (unknownNetwork) is a usage error; other refusals are not")
    func unknownNetworkIsUsage() {
        #expect(CommandError.refused(.unknownNetwork, "no network is named \"hotel\"").exitStatus == .usage)
        #expect(CommandError.refused(.badArgument, "requiredNetwork must name networks").exitStatus == .refused)
    }

    @Test("an unknown interface type lists the accepted names")
    func unknownType() {
        let message = usageError("status", "--require-type", "pigeon")
        #expect(message?.hasPrefix("--require-type expects one of wifi, cellular, wiredEthernet, loopback, other")
            == true)
        #expect(message?.hasSuffix("got \"pigeon\"") == true)
    }

    @Test("requiring and prohibiting the same type contradict each other, in any spelling")
    func contradiction() {
        #expect(usageError("status", "--require-type", "wifi", "--prohibit-type", "wifi")
            == "--require-type wifi and --prohibit-type wifi contradict each other")
        #expect(usageError("wait", "--prohibit-type=Ethernet", "--require-type=wired")
            == "--require-type wiredEthernet and --prohibit-type Ethernet contradict each other")
    }

    @Test("a repeated single-value option is a usage error")
    func repeated() {
        #expect(usageError("wait", "--timeout", "1", "--timeout", "2") == "--timeout given more than once")
        #expect(usageError("status", "--require-type=wifi", "--require-type=cellular")
            == "--require-type given more than once")
        #expect(usageError("--socket=/a", "status", "--socket=/b") == "--socket given more than once")
    }

    @Test("--prohibit-type may be repeated")
    func prohibitMany() throws {
        let status = try parsed(StatusVerb.self, "status", "--prohibit-type", "wifi", "--prohibit-type", "cellular")
        #expect(status.criteria.prohibitedInterfaceTypes == [.wifi, .cellular])
    }

    @Test("options that do not apply to the command are usage errors")
    func notApplicable() {
        #expect(usageError("status", "--timeout", "5") == "--timeout does not apply to status")
        #expect(usageError("interfaces", "--require-type", "wifi") == "--require-type does not apply to interfaces")
        #expect(usageError("wait", "--check") == "--check does not apply to wait")
        #expect(usageError("reload", "--prohibit-type", "wifi") == "--prohibit-type does not apply to reload")
    }

    @Test("wait's timeout defaults to 30 s; 0 is accepted; decimal only")
    func timeout() throws {
        #expect(try parsed(WaitVerb.self, "wait").timeout == .seconds(30))
        #expect(WaitVerb.defaultTimeout == .seconds(30))
        #expect(try parsed(WaitVerb.self, "wait", "--timeout", "0").timeout == .zero)
        #expect(try parsed(WaitVerb.self, "wait", "--timeout=0.25").timeout == .milliseconds(250))
        for text in ["1e300", "0x1f"] {
            #expect(usageError("wait", "--timeout", text)
                == "--timeout expects a decimal number of seconds, got \"\(text)\"")
        }
    }

    @Test("--check, --json and --no-color are read")
    func switches() throws {
        #expect(try parsed(StatusVerb.self, "status", "--check", "--json", "--no-color").check)
        #expect(try global("status", "--check", "--json", "--no-color") == GlobalOptions(json: true, noColor: true))
        #expect(try !parsed(StatusVerb.self, "status").check)
        #expect(try global("status") == GlobalOptions())
    }

    @Test("help and version need no command; version keeps the socket")
    func helpAndVersion() throws {
        #expect(try PathctlCommandLine.parse(["-h"]).word == "help")
        #expect(try PathctlCommandLine.parse(["status", "--help"]).word == "help")
        #expect(try PathctlCommandLine.parse(["-V"]).word == "version")
        #expect(try PathctlCommandLine.parse(["--socket=/tmp/x.sock", "--version"]).word == "version /tmp/x.sock")
    }

    @Test("--version takes no other word: an extra argument is a usage error, a command line must be valid")
    func versionOperands() throws {
        #expect(usageError("--version", "extra") == "unexpected argument \"extra\" after --version")
        #expect(usageError("extra", "-V") == "unexpected argument \"extra\" after --version")
        #expect(usageError("-V", "status", "now") == "unexpected argument \"now\" after status")
        #expect(usageError("status", "-V", "--timeout=1") == "--timeout does not apply to status")
        #expect(try PathctlCommandLine.parse(["status", "--version"]).word == "version")
    }

    @Test("the requirement options' help names status, wait, run and hold, and says what status does without them",
          arguments: PathRequirements.options.map(\.option.name))
    func requirementHelp(option: String) throws {
        let spec = try #require(Commands.table.options.first { $0.name == option }).spec
        let help = spec.help.split(separator: "\n").joined(separator: " ")
        #expect(help.hasPrefix("status, wait, run, hold: "), "\(option): \(help)")
        #expect(help.contains("status then exits 1 without"), "\(option): \(help)")
        #expect(!PathctlCommandLine.usage.contains("status --check, wait"))
        #expect(try PathctlCommandLine.parse(["status", option]).word == "status")
        #expect(try parsed(StatusVerb.self, "status", option).check, "\(option) makes status a check")
    }

    @Test("--completions SHELL needs no command, names a known shell, and --help does not list it")
    func completions() throws {
        #expect(try PathctlCommandLine.parse(["--completions", "zsh"]).word == "completions zsh")
        #expect(try PathctlCommandLine.parse(["--completions=Fish"]).word == "completions fish")
        #expect(usageError("--completions", "tcsh") == "--completions expects one of bash, zsh, fish, got \"tcsh\"")
        #expect(!PathctlCommandLine.usage.contains("--completions"))
    }

    @Test("commands and operands are checked")
    func commands() {
        #expect(usageError() == "no command given")
        #expect(usageError("launch") == "unknown command \"launch\"")
        #expect(usageError("status", "now") == "unexpected argument \"now\" after status")
        #expect(usageError("--socket=", "status") == "--socket expects a path of 1 to 107 bytes")
        #expect(usageError("--socket", "/" + String(repeating: "s", count: 107), "status")
            == "--socket expects a path of 1 to 107 bytes")
    }

    @Test("route takes one or more HOSTs, names and addresses, and --json")
    func routeHosts() throws {
        let route = try parsed(RouteVerb.self, "route", "example.org", "198.51.100.7", "--json", "2001:db8::7")
        #expect(route.hosts == ["example.org", "198.51.100.7", "2001:db8::7"])
        #expect(try global("route", "example.org", "--json").json)
        #expect(usageError("route") == "route needs a HOST: a name or an IP address")
        #expect(usageError("route", "") == "route: \"\" is no HOST")
        #expect(usageError("route", "example.org", "--check") == "--check does not apply to route")
        #expect(usageError("route", "example.org", "--timeout=1") == "--timeout does not apply to route")
    }

    @Test("monitor and wait take HOSTs after --route, and only then; criteria and requirements do not go with it")
    func routeWatchHosts() throws {
        let monitor = try parsed(MonitorVerb.self, "monitor", "--route", "db.example.org", "fe80::1%eth0", "--json")
        #expect(monitor.routeHosts == ["db.example.org", "fe80::1%eth0"])
        let wait = try parsed(WaitVerb.self, "wait", "--timeout", "5", "--route", "192.0.2.10")
        #expect(wait.routeHosts == ["192.0.2.10"] && wait.timeout == .seconds(5))
        #expect(try parsed(MonitorVerb.self, "monitor").routeHosts == nil)
        #expect(usageError("monitor", "--route") == "monitor --route needs a HOST: a name or an IP address")
        #expect(usageError("wait", "db.example.org") == "unexpected argument \"db.example.org\" after wait")
        #expect(usageError("wait", "--route", "h", "--ipv4") == "--ipv4 does not apply with --route")
        #expect(usageError("monitor", "--route", "h", "--require-type", "wifi")
            == "--require-type does not apply with --route")
        #expect(usageError("status", "--route") == "--route does not apply to status")
        #expect(PathctlCommandLine.usage.contains("pathctl [--socket PATH] monitor [--json] --route HOST..."))
        let history = try parsed(HistoryVerb.self, "history", "--route", "db.example.org", "--since", "yesterday")
        #expect(history.routeHosts == ["db.example.org"] && history.since != nil)
    }

    @Test("the usage names every command, every option and every exit status")
    func usage() {
        let text = PathctlCommandLine.usage
        for command in Commands.table.commands { #expect(text.contains("  \(command.name) ")) }
        for option in Commands.table.visibleOptions { #expect(text.contains(option.name)) }
        for status in PathctlExitStatus.allCases { #expect(text.contains("\(status.rawValue) ")) }
        #expect(text.contains("default 30"))
    }
}

@Suite("Colour for the human status")
struct ColourPolicyTests {
    func enabled(noColor: Bool = false, json: Bool = false, terminal: Bool = true,
                 environment: [String: String] = ["TERM": "xterm-256color"]) -> Bool {
        ColourPolicy.isEnabled(noColorOption: noColor, json: json, outputIsTerminal: terminal) { environment[$0] }
    }

    @Test("on a terminal, and only there")
    func terminal() {
        #expect(enabled())
        #expect(!enabled(terminal: false))
    }

    @Test("never with --no-color, --json, NO_COLOR (even empty) or TERM=dumb")
    func never() {
        #expect(!enabled(noColor: true))
        #expect(!enabled(json: true))
        #expect(!enabled(environment: ["NO_COLOR": "1", "TERM": "xterm"]))
        #expect(!enabled(environment: ["NO_COLOR": "", "TERM": "xterm"]))
        #expect(!enabled(environment: ["TERM": "dumb"]))
    }

    @Test("the status colours reset afterwards")
    func paint() {
        #expect(TerminalColour.green.paint("satisfied") == "\u{1B}[32msatisfied\u{1B}[0m")
    }
}
