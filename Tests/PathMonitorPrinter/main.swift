// SPDX-License-Identifier: Apache-2.0
// PathMonitorPrinter: prints every update of a PathMonitor as one JSON line, for the kernel tests,
// which run it inside a network namespace beside the real pathd.
//
//   PathMonitorPrinter --mode automatic|daemon|inProcess [--socket PATH] [--require TYPE]
//             [--prohibit TYPE]... [--not-expensive] [--not-constrained]
//
// stdout: {"event":"state", "state":…, "path":{every field}|null, "source":…} per call of
// the state handler, the path's fields named as in pathd's path lines, and the same with
// "event":"path" per call of the path handler (which comes first). A line "report" on
// stdin prints the same for the current state, with "event":"report" (read on the
// handler's queue, so in order with the calls); end of stdin exits 0. Usage errors
// exit 2. It runs wherever the test puts it: `ip netns exec`, nsenter, setpriv.
import Dispatch
import Foundation
import PathClient
import PathModel

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PathMonitorPrinter: \(message)\n".utf8))
    exit(2)
}

func interfaceType(_ name: String) -> InterfaceType {
    guard let type = InterfaceType(known: name) else { fail("unknown interface type \(name)") }
    return type
}

var mode = PathMonitor.Mode.automatic
var socketPath: String?
var required: InterfaceType?
var prohibited: [InterfaceType] = []
var notExpensive = false
var notConstrained = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--not-expensive": notExpensive = true; continue
    case "--not-constrained": notConstrained = true; continue
    default: break
    }
    guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
    switch argument {
    case "--mode":
        switch value {
        case "automatic": mode = .automatic
        case "daemon": mode = .daemon
        case "inProcess": mode = .inProcess
        default: fail("unknown mode \(value)")
        }
    case "--socket": socketPath = value
    case "--require": required = interfaceType(value)
    case "--prohibit": prohibited.append(interfaceType(value))
    default: fail("unknown argument \(argument)")
    }
}

func json(_ path: Path) -> [String: Any] {
    [
        "status": path.status.rawValue,
        "unsatisfiedReason": path.unsatisfiedReason?.rawValue ?? NSNull(),
        "reasonInterface": path.reasonInterface ?? NSNull(),
        "interfaces": path.availableInterfaces.map { interface -> [String: Any] in
            ["name": interface.name, "index": Int(interface.index.rawValue), "type": interface.type.rawValue,
             "tunnel": interface.isTunnel, "network": json(interface.network)]
        },
        "isExpensive": path.isExpensive,
        "isConstrained": path.isConstrained,
        "supportsIPv4": path.supportsIPv4,
        "supportsIPv6": path.supportsIPv6,
        "supportsDNS": path.supportsDNS,
        "gateways": path.gateways.map(\.description),
    ]
}

/// A link's network as pathd's lines carry it (`{"state","id","name","anchor"}`, or null).
func json(_ network: LinkNetwork?) -> Any {
    guard let network else { return NSNull() }
    return ["state": network.state.rawValue, "id": network.id?.description ?? NSNull(),
            "name": network.name ?? NSNull(), "anchor": network.anchor?.rawValue ?? NSNull()] as [String: Any]
}

func json(_ state: PathMonitor.State) -> String {
    switch state {
    case .unknown: return "unknown"
    case .available: return "available"
    case .needsConnection: return "needsConnection"
    case .unavailable: return "unavailable"
    }
}

func json(_ source: PathMonitor.Source) -> Any {
    switch source {
    case .none:
        return "none"
    case .inProcess:
        return "inProcess"
    case .daemon(let socketPath, let generation, let connection):
        let object: [String: Any] = ["socketPath": socketPath, "generation": Int(generation.rawValue),
                                     "connection": Int(connection)]
        return object
    }
}

func emit(_ event: String, _ state: PathMonitor.State, _ source: PathMonitor.Source) {
    let object: [String: Any] = ["event": event, "state": json(state), "path": state.path.map(json) ?? NSNull(),
                                 "source": json(source)]
    do {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    } catch {
        fail("cannot encode \(object): \(error)")
    }
}

let queue = DispatchQueue(label: "PathMonitorPrinter.handler")
let monitor = PathMonitor(requiredInterfaceType: required, prohibitedInterfaceTypes: prohibited,
                          prohibitExpensivePaths: notExpensive, prohibitConstrainedPaths: notConstrained,
                          socketPath: socketPath, mode: mode)
monitor.pathUpdateHandler = { path in
    dispatchPrecondition(condition: .onQueue(queue))
    emit("path", PathMonitor.State(path), monitor.source)
}
monitor.stateUpdateHandler = { state in
    dispatchPrecondition(condition: .onQueue(queue))
    emit("state", state, monitor.source)
}
monitor.start(queue: queue)

while let line = readLine() {
    guard line == "report" else { fail("unknown command \(line)") }
    queue.sync { emit("report", monitor.currentState, monitor.source) }
}
monitor.cancel()
exit(0)
