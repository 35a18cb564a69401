// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

extension PathConnection {
    /// Asks pathd for the route to `destination` (the `route` request, docs/PROTOCOL.md)
    /// and waits for the answer: the interface, source, gateway and whether traffic can
    /// go. Blocking, like every call of this type. pathd's `error` line throws a
    /// `.refused` error (`lookupFailed` while its netlink monitor is being replaced).
    /// `zone` is a link-local IPv6 destination's interface, by name or index (the "eth0"
    /// of "fe80::1%eth0", RouteZone.swift); pathd refuses it for any other address.
    public func route(to destination: IPAddress, zone: String? = nil) throws(PathClientError) -> RouteReport {
        try routeWithLine(to: destination, zone: zone).report
    }

    /// `route(to:)` with the exact line of the answer, for output that passes the
    /// daemon's fields through (`pathctl route --json`).
    public func routeWithLine(to destination: IPAddress, zone: String? = nil)
        throws(PathClientError) -> (report: RouteReport, line: [UInt8]) {
        try send(Request(.route(destination: destination, interface: zone)))
        while true {
            let (message, line) = try nextWithLine()
            switch message {
            case .route(let report, _, _):
                return (report, line)
            case .error(let code, let text, _):
                throw PathClientError.refused(code, text)
            default:
                // A subscription's path lines may come first; the reply comes in order.
                continue
            }
        }
    }
}
