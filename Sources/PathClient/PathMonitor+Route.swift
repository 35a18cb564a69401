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
    /// answer, or pathd refused (`lookupFailed`: ask again).
    public static func route(to destination: PathModel.IPAddress, socketPath: String? = nil,
                             mode: Mode = .automatic) async throws(PathClientError) -> RouteReport {
        typealias Reply = Result<RouteReport, PathClientError>
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
            let reply: @Sendable (Result<RouteReport, PathClientError>) -> Void = { continuation.resume(returning: $0) }
            if mode == .inProcess {
                InProcessPathSource.route(to: destination, reply: reply)
                return
            }
            // PathConnection blocks: it runs off the caller's thread.
            DispatchQueue.global().async {
                do throws(PathClientError) {
                    let connection = try PathConnection.connect(to: socketPath, timeout: routeTimeout)
                    reply(.success(try connection.route(to: destination)))
                } catch where error.kind == .unreachable && mode == .automatic {
                    InProcessPathSource.route(to: destination, reply: reply)
                } catch {
                    reply(.failure(error))
                }
            }
        }
        return try result.get()
    }

    /// `route(to:)` for an address in text (`"198.51.100.7"`, `"2001:db8::7"`). A host
    /// name is refused, not resolved: resolve it first and ask about each address.
    public static func route(to destination: String, socketPath: String? = nil,
                             mode: Mode = .automatic) async throws(PathClientError) -> RouteReport {
        guard let address = PathModel.IPAddress(destination) else {
            throw PathClientError("\"\(destination)\" is not an IP address; resolve names first")
        }
        return try await route(to: address, socketPath: socketPath, mode: mode)
    }
}
