import Dispatch
import Glibc
import Netlink
import PathDaemon
import PathModel
import PathProtocol

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
        let settings = configuration.daemon
        let queue = stateQueue
        let netlink = NetlinkConfiguration(
            lookupDestinations: [.ipv4: settings.lookupIPv4, .ipv6: settings.lookupIPv6],
            receiveBufferBytes: settings.receiveBufferBytes)
        let service = PathService(
            queue: queue,
            configuration: configuration.service,
            log: log,
            makeSource: { generation, callbacks in
                NetlinkMonitor(generation: generation, queue: queue, configuration: netlink,
                               deliver: callbacks.deliver, lost: callbacks.lost, log: { level, text in log.log(Logger.Level(level), text) })
            })
        self.service = service
        resolver = ResolverWatcher(path: settings.resolvConfPath, queue: queue, log: log) { configured in
            service.setDNSConfigured(configured)
        }
    }

    /// Starts everything on the state queue; returns at once.
    func launch() {
        stateQueue.async { [self] in
            log.info("pathd \(DaemonVersion.current) starting")
            let configuration = self.configuration
            service.setConfigurationReloader { configuration.reload() }
            resolver.start()
            do {
                try service.start()
            } catch {
                listener.close()
                log.error("pathd: cannot start the network monitor: \(error)")
                exit(1)
            }
            service.serve(listener)
            service.whenFirstPathKnown {
                ProcessEnvironment.notifyReady()
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
        log.info("received \(name); stopping")
        service.stop(reason: name)
        resolver.cancel()
        exit(0)
    }
}
