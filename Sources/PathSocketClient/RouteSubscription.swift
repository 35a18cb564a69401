// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathProtocol
import SystemCalls

/// A subscription to the route to one destination (`subscribe` with a `destination`,
/// docs/PROTOCOL.md): the kernel's answer for it, judged as pathd judges a path, at once
/// and at each change. It finds, reconnects and cancels as `DaemonSubscription` does, and
/// is one underneath; its events are its own, so that `DaemonSubscription.Event`, which
/// programs switch over exhaustively, kept the cases it had.
public final class RouteSubscription: Sendable {
    /// What happened to the subscription.
    public enum Event: Hashable, Sendable {
        /// A daemon answered and the subscription is in place; a `route` follows once the
        /// kernel answered.
        case connected(socketPath: String, daemonVersion: String, generation: Generation)
        /// The route to the destination (the first answer, then each change).
        case route(RouteUpdate)
        /// The daemon lost kernel events and re-read its state; the current route follows.
        case resync(reason: String, generation: Generation)
        /// The connection could not be made or ended, or pathd refused the destination
        /// (`badArgument`: a zone it does not know): the route is unknown until the next
        /// `connected`. The subscription retries by itself, after a back-off.
        case disconnected(PathClientError)
    }

    private let subscription: DaemonSubscription

    /// The route to `destination` (`zone`: the interface of a link-local IPv6 one); the
    /// other parameters as `DaemonSubscription`'s.
    public init(destination: IPAddress, zone: String? = nil, socketPath: String? = nil,
                backoff: Backoff = .standard, scheduler: any Scheduler = DispatchScheduler(),
                helloTimeout: Duration = .seconds(30),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        subscription = DaemonSubscription(
            request: Request(.subscribe(.route(destination: destination, interface: zone))), criteria: .any,
            socketPath: socketPath, backoff: backoff, scheduler: scheduler, helloTimeout: helloTimeout,
            random: random)
    }

    /// Starts; events arrive on `queue`. A second call, or a call after `cancel`, does nothing.
    public func start(queue: DispatchQueue, handler: @escaping @Sendable (Event) -> Void) {
        subscription.startDelivering(queue: queue) { delivery in
            switch delivery {
            case .route(let update): handler(.route(update))
            case .event(.connected(let socketPath, let version, let generation)):
                handler(.connected(socketPath: socketPath, daemonVersion: version, generation: generation))
            case .event(.resync(let reason, let generation)): handler(.resync(reason: reason, generation: generation))
            case .event(.disconnected(let error)): handler(.disconnected(error))
            case .event(.path): break  // a route subscription's daemon sends no path line
            }
        }
    }

    /// Stops for good: once this returns, no handler call begins.
    public func cancel() {
        subscription.cancel()
    }
}
