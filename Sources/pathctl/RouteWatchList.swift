// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// What `monitor --route` and `wait --route` follow on one connection: a route
/// subscription per address of each HOST, and the default path's subscription, whose
/// changes make the names be resolved again (a name's addresses may depend on the path:
/// another resolver, a VPN's split DNS), as a long-lived client would have to.
final class RouteWatchList {
    /// The id of the default path's subscription; the routes' ids are "HOST ADDRESS".
    static let pathID = JSONValue.string("path")

    /// One watched address of one HOST.
    struct Key: Hashable {
        var host: Int
        var address: IPAddress
    }

    /// In the order given, each once.
    private(set) var hosts: [RouteHost]
    /// The latest report and its line, per watched address; forgotten on a new connection.
    private(set) var answers: [Key: (report: RouteReport, line: [UInt8])] = [:]
    private var keysByID: [JSONValue: Key] = [:]
    /// Whether the first path line is still to come: it follows the resolution `init`
    /// has just made, so it resolves nothing again (`pathLine()`).
    private var awaitsFirstPath = true

    init(_ hosts: [String], resolver: @escaping RouteHost.Resolver = HostResolver.ipAddresses(of:)) {
        var seen = Set<String>()
        self.hosts = hosts.filter { seen.insert($0).inserted }.map { RouteHost($0, resolver: resolver) }
        for key in keys { keysByID[id(of: key)] = key }
    }

    /// Every address of every host, as resolved last.
    private var keys: [Key] {
        hosts.indices.flatMap { index in hosts[index].resolved.map { Key(host: index, address: $0) } }
    }

    private func id(of key: Key) -> JSONValue {
        .string("\(hosts[key.host].host) \(key.address)")
    }

    private func subscription(to key: Key) -> Request {
        Request(.subscribe(.route(destination: key.address, interface: hosts[key.host].zone)), id: id(of: key))
    }

    /// What a new connection subscribes to: the path, then each address. The answers
    /// of an earlier connection are forgotten: the new daemon answers again.
    func requests() -> [Request] {
        answers = [:]
        return [Request(.subscribe(.path(.any)), id: Self.pathID)] + keys.map(subscription(to:))
    }

    /// Records a route line; the host and address it is about, nil for one no longer watched.
    func received(_ update: RouteUpdate, id: JSONValue?, line: [UInt8]) -> Key? {
        guard let id, let key = keysByID[id] else { return nil }
        answers[key] = (update.report, line)
        return key
    }

    /// A line of the path's subscription: the first one (the path as it is when the
    /// subscription starts) changes nothing, each later one is a change (`pathChanged()`).
    func pathLine() -> (requests: [Request], changedHosts: [Int]) {
        guard !awaitsFirstPath else {
            awaitsFirstPath = false
            return ([], [])
        }
        return pathChanged()
    }

    /// The path changed: resolves the names again. Returns the requests that follow
    /// the change (unsubscribe the addresses gone, subscribe the new ones) and the hosts
    /// whose addresses changed.
    func pathChanged() -> (requests: [Request], changedHosts: [Int]) {
        let before = Set(keys)
        var changedHosts: [Int] = []
        for index in hosts.indices where hosts[index].isName {
            let old = hosts[index].resolved
            hosts[index].resolve()
            if hosts[index].resolved != old { changedHosts.append(index) }
        }
        let after = Set(keys)
        var requests: [Request] = []
        for key in before.subtracting(after) {
            requests.append(Request(.unsubscribe, id: id(of: key)))
            keysByID[id(of: key)] = nil
            answers[key] = nil
        }
        for key in keys where !before.contains(key) {
            keysByID[id(of: key)] = key
            requests.append(subscription(to: key))
        }
        return (requests, changedHosts)
    }

    /// Whether every address of every host was answered on this connection (and every
    /// host resolved).
    var isAnswered: Bool { hosts.allSatisfy { $0.unresolvedReason == nil } && keys.allSatisfy { answers[$0] != nil } }

    /// Whether every host has an address whose route is satisfied (as `route` counts it).
    var isUsable: Bool { unmet.isEmpty }

    /// Why each host that is not usable is not: "db.example.org: no route to 198.51.100.7".
    var unmet: [String] {
        hosts.indices.compactMap { index in
            let host = hosts[index]
            if let reason = host.unresolvedReason { return "\(host.host): \(reason)" }
            let reports = host.resolved.compactMap { answers[Key(host: index, address: $0)]?.report }
            if reports.contains(where: \.isUsable) { return nil }
            guard !reports.isEmpty else { return "\(host.host): not answered yet" }
            return "\(host.host): " + reports.map { PeerText.oneLine($0.summary) }.joined(separator: "; ")
        }
    }

    /// The latest line of each address, in the order of the hosts.
    var latestLines: [[UInt8]] { keys.compactMap { answers[$0]?.line } }
}
