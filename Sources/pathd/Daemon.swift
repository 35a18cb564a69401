// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import Netlink
import PathDaemon
import KernelState
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// The running daemon: the service, its netlink source factory, the resolv.conf
/// watcher and the handling of signals (SIGHUP reloads the configuration), all on one
/// state queue.
///
/// `@unchecked Sendable`: after `init` (on the main thread, before `launch`), every
/// member is used only on `stateQueue`, which is where all the closures below run.
final class Daemon: @unchecked Sendable {
    private let stateQueue = DispatchQueue(label: "pathd.state")
    private let listener: UnixListener
    private let log: Logger
    private let service: PathService
    private let resolver: ResolverWatcher
    private let configuration: DaemonConfiguration

    init(configuration: DaemonConfiguration, listener: UnixListener, log: Logger) {
        self.listener = listener
        self.log = log
        self.configuration = configuration
        let settings = configuration.initial.daemon
        let queue = stateQueue
        let netlink = NetlinkConfiguration(lookupDestinations: settings.lookupDestinations,
                                           receiveBufferBytes: settings.receiveBufferBytes,
                                           resolvesGateways: settings.resolvesGateways)
        let service = PathService(
            queue: queue,
            configuration: configuration.initial,
            log: log,
            stateDirectory: ProcessEnvironment.stateDirectory,
            makeSource: { generation, callbacks in
                NetlinkMonitor(generation: generation, configuration: netlink,
                               deliver: callbacks.deliver, lost: callbacks.lost,
                               log: { level, text in log.log(level, text) })
            })
        self.service = service
        resolver = ResolverWatcher(path: settings.resolvConfPath, upstreamPath: settings.upstreamResolvConfPath,
                                   queue: queue, log: log) { configured in
            service.setDNSConfigured(configured)
        }
    }

    /// Starts everything on the state queue; returns at once.
    func launch() {
        stateQueue.async { [self] in
            log.info("pathd \(DaemonVersion.current) starting")
            let configuration = self.configuration
            service.setConfigurationReloader { configuration.reload() }
            service.onDefaultPathChange = { [log] path in
                log.info("path: \(path.summary)")
                ServiceManager.status("path: \(path.summary)")
            }
            service.onReload = { phase in
                switch phase {
                case .began: ServiceManager.reloading()
                case .ended: ServiceManager.reloaded()
                }
            }
            resolver.start()
            let listener = self.listener
            service.start(onFatal: { [log] why in
                listener.close()
                log.error("pathd: cannot start the network monitor: \(why)")
                exit(1)
            })
            service.serve(listener)
            service.whenFirstPathKnown { [service] in
                let status = service.currentPath().map { "path: \($0.summary)" } ?? "watching the network"
                ServiceManager.ready(status: status)
                if let interval = ServiceManager.watchdogInterval {
                    ServiceManager.startWatchdog(every: interval, on: self.stateQueue, scheduler: DispatchScheduler())
                }
            }
        }
    }

    /// Runs on the main thread for the life of the process: each handled signal
    /// (blocked since main began) is taken there and acted on, in order, on the state queue.
    func receiveSignals() -> Never {
        HandledSignals.receive(log: log) { number in
            stateQueue.async { [self] in
                if number == SIGHUP {
                    service.reloadConfiguration(requestedBy: "SIGHUP")
                } else {
                    stop(signal: HandledSignals.name(number))
                }
            }
        }
    }

    private func stop(signal name: String) {
        ServiceManager.stopping()
        log.info("received \(name); stopping")
        service.stop(reason: name)
        resolver.cancel()
        exit(0)
    }
}
