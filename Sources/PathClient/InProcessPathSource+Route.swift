// SPDX-License-Identifier: Apache-2.0
import Dispatch
import KernelState
import PathModel
import PathConfiguration
import PathEvaluation
import PathSocketClient
import ServiceSupport

extension InProcessPathSource {
    /// The `route` answer without a daemon: pathd's engine, started in this process for
    /// one question. It reads the same configuration files (for `Ignore=`, costs and
    /// on-demand interfaces), waits for the kernel's state, asks the kernel for the route
    /// on the netlink monitor's queue (`KernelStateTracker.lookUpRoute`), judges it as the daemon
    /// does (`PathEvaluator.route`), and stops. `reply` is called once, on a private queue.
    /// `zone` is refused and resolved as pathd does (RouteZone.swift).
    static func route(to destination: PathModel.IPAddress, zone: String? = nil,
                      configurationFiles: ConfigurationFiles = ConfigurationFiles(),
                      reply: @escaping @Sendable (Result<RouteReport, PathClientError>) -> Void) {
        if let zone, let problem = zoneProblem(zone, of: destination) {
            reply(.failure(badArgument(problem)))
            return
        }
        let queue = DispatchQueue(label: "pathd.PathClient.route")
        queue.async {
            let (result, _) = configurationFiles.load()
            let configuration = result.isValid ? result.configuration : .builtIn
            let kernelState = Self.kernelState(on: queue, settings: configuration.daemon)
            var asked = false
            // The handlers hold the tracker until `finish` clears them: nothing else does.
            kernelState.onChange = { _ in
                guard !asked else { return }
                asked = true
                var interface: InterfaceIndex?
                if let zone {
                    guard let link = kernelState.snapshot.link(zone: zone) else {
                        reply(.failure(badArgument(unknownZone(zone, of: destination))))
                        finish(kernelState)
                        return
                    }
                    interface = link.index
                }
                kernelState.lookUpRoute(to: destination, through: interface) { answer in
                    switch answer {
                    case .success(let lookup):
                        reply(.success(PathEvaluator.route(to: destination, lookup: lookup,
                                                           snapshot: kernelState.snapshot,
                                                           policy: configuration.policy)))
                    case .failure(let error):
                        reply(.failure(PathClientError(
                            "the kernel could not be asked for the route to \(destination): \(error)",
                            kind: .unreachable)))
                    }
                    finish(kernelState)
                }
            }
            kernelState.onFatal = { why in
                reply(.failure(PathClientError("cannot watch the kernel in this process: \(why)", kind: .unreachable)))
                finish(kernelState)
            }
            kernelState.start()
        }
    }

    /// Why pathd would refuse `zone` for `destination` whatever the links: not a name or
    /// index, or a destination that takes no zone; nil when it may be asked.
    static func zoneProblem(_ zone: String, of destination: PathModel.IPAddress) -> String? {
        RouteZone.isValid(zone) ? RouteZone.refusal(zoning: destination) : "\"\(zone)\" is no interface name or index"
    }

    /// Why a zone naming no interface is refused.
    static func unknownZone(_ zone: String, of destination: PathModel.IPAddress) -> String {
        "no interface \"\(zone)\" (the zone of \(destination)%\(zone))"
    }

    /// A question pathd would refuse as `badArgument`, refused here of the same kind.
    static func badArgument(_ message: String) -> PathClientError {
        PathClientError(message, kind: .refused(.badArgument, message: message))
    }

    private static func finish(_ kernelState: KernelStateTracker) {
        kernelState.stop()
        kernelState.onChange = nil
        kernelState.onFatal = nil
    }
}
