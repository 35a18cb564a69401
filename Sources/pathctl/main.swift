import Glibc
import PathModel
import PathProtocol

/// pathctl: ask pathd about the network path. Wiring and argument parsing only.

let verbs = [StatusVerb.verb, MonitorVerb.verb, WaitVerb.verb, InterfacesVerb.verb, ReloadVerb.verb]

let usage = """
    Usage: pathctl [--socket PATH] COMMAND [--json]

    Asks pathd whether a usable network path exists.

    Commands:
    \(verbs.map { "  " + $0.name.padding(to: 12) + $0.summary }.joined(separator: "\n"))

    Options:
      --socket PATH   talk to pathd at PATH (default: $PATHD_SOCKET, else
                      /run/pathd/pathd.sock, then $XDG_RUNTIME_DIR/pathd/pathd.sock)
      --json          print the daemon's JSON lines instead of text
      --require-type TYPE
                      status, monitor, wait: only paths over TYPE count (wifi,
                      cellular, wiredEthernet, loopback, other)
      --prohibit-type TYPE
                      status, monitor, wait: paths over TYPE do not count
                      (repeatable)
      --timeout SECONDS
                      wait: give up after SECONDS (exit 1)
      -h, --help      show this help and exit
      --version       show the version and exit

    Exit status: 0 on success, 1 when pathd cannot be reached or refuses (or wait
    timed out), 2 on a usage error. See pathctl(1).

    """

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

func parse(_ arguments: [String], verbs: [Verb]) throws(CommandError) -> (Verb, GlobalOptions)? {
    var options = GlobalOptions()
    var verb: Verb?
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
        switch argument {
        case "-h", "--help":
            return nil
        case "--version":
            writeOut("pathctl \(DaemonVersion.current) (protocol \(ProtocolVersion.current))\n")
            exit(0)
        case "--json":
            options.json = true
        case "--socket":
            guard let path = remaining.popFirst() else { throw .usage("--socket needs a path") }
            options.socketPath = path
        case "--require-type", "--prohibit-type":
            guard let name = remaining.popFirst() else { throw .usage("\(argument) needs an interface type") }
            guard let type = InterfaceType(rawValue: name) else {
                let known = InterfaceType.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage("\(argument) expects one of \(known), got \"\(name)\"")
            }
            if argument == "--require-type" {
                options.criteria.requiredInterfaceType = type
            } else {
                options.criteria.prohibitedInterfaceTypes.insert(type)
            }
        case "--timeout":
            guard let text = remaining.popFirst(), let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw .usage("--timeout needs a number of seconds")
            }
            // Int64(_:) traps past Int64.max; Int64(exactly:) says so instead.
            guard let milliseconds = Int64(exactly: (seconds * 1000).rounded(.towardZero)) else {
                throw .usage("--timeout \(text) is too long (at most \(Int64.max / 1000) seconds)")
            }
            options.timeout = .milliseconds(milliseconds)
        default:
            if argument.hasPrefix("--socket=") {
                options.socketPath = String(argument.dropFirst("--socket=".count))
            } else if verb == nil, let known = verbs.first(where: { $0.name == argument }) {
                verb = known
            } else if verb == nil {
                throw .usage("unknown command \"\(argument)\"")
            } else {
                throw .usage("unknown argument \"\(argument)\" for \(verb!.name)")
            }
        }
    }
    guard let verb else { throw .usage("no command given") }
    if options.criteria != .any && !verb.takesCriteria {
        throw .usage("--require-type and --prohibit-type do not apply to \(verb.name)")
    }
    if options.timeout != nil && !verb.takesTimeout {
        throw .usage("--timeout does not apply to \(verb.name)")
    }
    return (verb, options)
}

do {
    guard let (verb, options) = try parse(Array(CommandLine.arguments.dropFirst()), verbs: verbs) else {
        writeOut(usage)
        exit(0)
    }
    exit(try verb.run(options))
} catch {
    let hint = error.exitStatus == 2 ? "\nTry 'pathctl --help'." : ""
    writeError("pathctl: \(error.message)\(hint)\n")
    exit(error.exitStatus)
}
