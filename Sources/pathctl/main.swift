import Glibc
import PathProtocol

/// pathctl: ask pathd about the network path. Wiring and argument parsing only.

let verbs = [StatusVerb.verb, MonitorVerb.verb, InterfacesVerb.verb, ReloadVerb.verb]

let usage = """
    Usage: pathctl [--socket PATH] COMMAND [--json]

    Asks pathd whether a usable network path exists.

    Commands:
    \(verbs.map { "  " + $0.name.padding(to: 10) + $0.summary }.joined(separator: "\n"))

    Options:
      --socket PATH   talk to pathd at PATH (default: /run/pathd/pathd.sock for root,
                      $XDG_RUNTIME_DIR/pathd/pathd.sock for other users)
      --json          print the daemon's JSON lines instead of text
      -h, --help      show this help and exit
      --version       show the version and exit

    Exit status: 0 on success, 1 when pathd cannot be reached or refuses, 2 on a usage
    error. See pathctl(1).

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
