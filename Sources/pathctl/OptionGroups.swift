// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel

/// The options every command takes: where pathd is, and how to print.
struct GlobalOptions: Equatable, Sendable {
    static let socket = CommandOption(OptionSpec("--socket", value: "PATH", help: """
        talk to pathd at PATH (default: $\(SocketPath.environmentVariable), else
        \(SocketPath.fallbacksInWords))
        """), brief: "talk to pathd at this socket", completion: .files)
    static let json = CommandOption(OptionSpec("--json", help: "print the daemon's JSON lines instead of text"),
                                    brief: "print the daemon's JSON lines instead of text")
    static let noColor = CommandOption(OptionSpec("--no-color", help: """
        status: no colour (there is none either with NO_COLOR
        set, TERM=dumb, --json, or off a terminal)
        """), brief: "never colour the output")
    static let version = CommandOption(OptionSpec("--version", short: "-V", help: """
        show the versions of pathctl, of the pathd it
        reaches, and of the protocol
        """), brief: "show the versions of pathctl, pathd and the protocol")
    /// The options every command takes, `--help` and `--version` among them.
    static let options = [socket, json, noColor, .help, version]

    /// `--socket`; nil for the default socket.
    var socketPath: String?
    var json = false
    var noColor = false

    init(socketPath: String? = nil, json: Bool = false, noColor: Bool = false) {
        self.socketPath = socketPath
        self.json = json
        self.noColor = noColor
    }

    init(_ line: ParsedCommandLine) throws(UsageError) {
        if let path = line.value(Self.socket) {
            if let expectation = SocketPath.expectation(for: path, absolute: false) {
                throw UsageError("\(Self.socket.name) expects \(expectation)")
            }
            socketPath = path
        }
        json = line.has(Self.json)
        noColor = line.has(Self.noColor)
    }
}

/// The criteria: which interfaces count (`--require-type`, `--prohibit-type`) and what the
/// path must (not) be (`--not-expensive`, `--not-constrained`, `--network`,
/// `--not-network`); the question status,
/// monitor, wait, run and hold ask, with one meaning (`Criteria`, docs/PROTOCOL.md). A
/// new criterion is its option here, in `options`, and its line in `criteria(in:)`.
enum CriteriaOptions {
    private static let interfaceTypes = ValueCompletion.words(InterfaceType.writtenNames.map(\.name))
    static let requireType = CommandOption(
        OptionSpec("--require-type", value: "TYPE",
                   help: "status, monitor, wait, run, hold: only paths over\nTYPE count"),
        brief: "only paths over this interface type count", completion: interfaceTypes)
    static let prohibitType = CommandOption(
        OptionSpec("--prohibit-type", value: "TYPE", repeatable: true,
                   help: "status, monitor, wait, run, hold: paths over TYPE\ndo not count (repeatable)"),
        brief: "paths over this interface type do not count", completion: interfaceTypes)
    static let notExpensive = CommandOption(OptionSpec("--not-expensive", help: """
        status, monitor, wait, run, hold: an expensive path
        (pathd.conf's Expensive=; cellular by default) does
        not count: it is unsatisfied, expensiveExcluded
        """), brief: "an expensive path does not count")
    static let notConstrained = CommandOption(OptionSpec("--not-constrained", help: """
        status, monitor, wait, run, hold: a constrained path
        (pathd.conf's Constrained=) does not count
        (constrainedExcluded)
        """), brief: "a constrained path does not count")
    static let network = CommandOption(OptionSpec("--network", value: "NAME", help: """
        status, monitor, wait, run, hold: only while the path's
        first interface is on the network NAME (a [Network]
        Name= of pathd.conf, or an ID) does it count; else
        networkExcluded (a network still pending is on none)
        """), brief: "only a path on this network counts")
    static let notNetwork = CommandOption(OptionSpec("--not-network", value: "NAME", repeatable: true, help: """
        status, monitor, wait, run, hold: a path whose first
        interface is on the network NAME does not count
        (networkExcluded; repeatable)
        """), brief: "a path on this network does not count")
    static let options = [requireType, prohibitType, notExpensive, notConstrained, network, notNetwork]

    static func criteria(in line: ParsedCommandLine) throws(UsageError) -> Criteria {
        var criteria = Criteria.any
        if let text = line.value(requireType) {
            criteria.requiredInterfaceType = try interfaceType(text, for: requireType)
        }
        for text in line.values(prohibitType) {
            let type = try interfaceType(text, for: prohibitType)
            if type == criteria.requiredInterfaceType {
                throw UsageError("\(requireType.name) \(type.rawValue) and \(prohibitType.name) \(text) "
                    + "contradict each other")
            }
            criteria.prohibitedInterfaceTypes.insert(type)
        }
        criteria.prohibitExpensivePaths = line.has(notExpensive)
        criteria.prohibitConstrainedPaths = line.has(notConstrained)
        if let name = line.value(network) { criteria.requiredNetwork = try networkName(name, for: network) }
        for name in line.values(notNetwork) {
            if name == criteria.requiredNetwork {
                throw UsageError("\(network.name) \(name) and \(notNetwork.name) \(name) contradict each other")
            }
            criteria.prohibitedNetworks.insert(try networkName(name, for: notNetwork))
        }
        return criteria
    }

    /// A network NAME as written: its form only. Whether pathd.conf defines it is pathd's
    /// to say (pathctl does not read pathd.conf): it refuses an unknown one
    /// (`unknownNetwork`), which pathctl reports as a usage error too.
    private static func networkName(_ text: String, for option: CommandOption) throws(UsageError) -> String {
        guard NetworkID(text) != nil || LinkNetwork.isValidName(text) else {
            throw UsageError("\(option.name) expects a network's Name= (\(LinkNetwork.validNameDescription)) "
                + "or its ID (32 hexadecimal digits), got \"\(text)\"")
        }
        return text
    }

    private static func interfaceType(_ text: String, for option: CommandOption) throws(UsageError) -> InterfaceType {
        guard let type = InterfaceType(written: text) else {
            throw UsageError("\(option.name) expects one of \(InterfaceType.writtenNamesDescription), got \"\(text)\"")
        }
        return type
    }
}

/// `--route HOST...`: monitor, wait and history about the route to each HOST instead of
/// the path.
enum RouteOption {
    static let route = CommandOption(OptionSpec("--route", help: """
        monitor, wait: the route to each HOST instead of the
        path (names resolved again when the path changes);
        history: that of each HOST of pathd.conf's [Watch]
        """), brief: "the route to each HOST instead of the path")
    static let hosts = CommandOperands("HOST", description: "a name or an IP address", completion: .hostnames,
                                       introducedBy: route.name)

    /// The HOSTs when `--route` is given (the table has checked that there is one), nil
    /// without it. `pathOnly`: the command's options that ask about a path, which a route
    /// has not (no criteria, and no requirement but a usable route).
    static func hosts(in line: ParsedCommandLine, operands: [String],
                      refusing pathOnly: [CommandOption] = []) throws(UsageError) -> [String]? {
        guard line.has(route) else { return nil }
        if let option = pathOnly.first(where: line.has) {
            throw UsageError("\(option.name) does not apply with \(route.name)")
        }
        return operands
    }
}
