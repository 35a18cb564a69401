// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathSocketClient

extension PathMonitor {
    /// How long `route(to:)` waits for pathd's answer before it fails with a timeout.
    public static let routeTimeout = Duration.seconds(10)

    /// Through what would traffic to `destination` go right now, and is that usable?
    /// The kernel decides (its route lookup, policy rules included; no packet is sent)
    /// and pathd judges the answer as it judges paths (docs/PROTOCOL.md, `route`).
    ///
    /// `mode` picks who answers, as for a monitor: `.automatic` asks pathd and, when no
    /// daemon answers, pathd's engine in this process (it reads netlink itself: a few
    /// milliseconds for the kernel's state, then the lookup); `.daemon` only pathd;
    /// `.inProcess` only the engine here. Throws `PathClientError` when nobody could
    /// answer, or pathd refused (`lookupFailed`: ask again; `badArgument` for a `zone`
    /// on an address that takes none, or one that names no interface).
    ///
    /// `zone` is the interface of a link-local IPv6 destination, by name or index (the
    /// "eth0" of "fe80::1%eth0"): fe80::/64 is on every link, and without a zone the
    /// kernel takes the first link's.
    public static func route(to destination: PathModel.IPAddress, zone: String? = nil, socketPath: String? = nil,
                             mode: Mode = .automatic) async throws(PathClientError) -> RouteReport {
        typealias Reply = Result<RouteReport, PathClientError>
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
            let reply: @Sendable (Result<RouteReport, PathClientError>) -> Void = { continuation.resume(returning: $0) }
            if mode == .inProcess {
                InProcessPathSource.route(to: destination, zone: zone, reply: reply)
                return
            }
            // PathConnection blocks: it runs off the caller's thread.
            DispatchQueue.global().async {
                do throws(PathClientError) {
                    let connection = try PathConnection.connect(to: socketPath, timeout: routeTimeout)
                    reply(.success(try connection.route(to: destination, zone: zone)))
                } catch where error.kind == .unreachable && mode == .automatic {
                    InProcessPathSource.route(to: destination, zone: zone, reply: reply)
                } catch {
                    reply(.failure(error))
                }
            }
        }
        return try result.get()
    }

    /// `route(to:)` for an address in text (`"198.51.100.7"`, `"2001:db8::7"`,
    /// `"fe80::1%eth0"` with its zone). A host name is refused, not resolved: resolve it
    /// first and ask about each address.
    public static func route(to destination: String, socketPath: String? = nil,
                             mode: Mode = .automatic) async throws(PathClientError) -> RouteReport {
        guard let (address, zone) = RouteZone.split(destination) else {
            throw PathClientError("\"\(destination)\" is not an IP address; resolve names first")
        }
        return try await route(to: address, zone: zone, socketPath: socketPath, mode: mode)
    }
}
