// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Glibc
import PathModel
import PathTestFixtures
import Testing
@testable import Netlink

@Suite(.enabled(if: namespaceSupport.isAvailable, "needs root and ip netns: \(namespaceSupport.reason)"), .blocking)
struct NamespaceMonitorTests {
    @Test func followsLinksAndRouteLookupsInANamespace() throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        let peer = try NetworkNamespace()
        defer { teardown("remove namespace \(peer.name)") { try peer.remove() } }
        try namespace.ip("link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", peer.name)
        try namespace.ip("link", "set", "lo", "up")
        try namespace.ip("link", "set", "va", "up")
        try peer.ip("link", "set", "vb", "up")
        try namespace.ip("addr", "add", "10.9.0.1/24", "dev", "va")
        try namespace.ip("-6", "addr", "add", "2001:db8:9::1/64", "dev", "va", "nodad")
        try namespace.ip("route", "add", "default", "via", "10.9.0.2")
        try namespace.ip("-6", "route", "add", "default", "via", "2001:db8:9::2")

        let queue = DispatchQueue(label: "pathd.test.netlink.netns")
        let inbox = BatchInbox()
        let monitor = NetlinkMonitor(generation: Generation(rawValue: 3), queue: queue,
                                     configuration: .standard,
                                     deliver: inbox.deliver, lost: inbox.lost, log: inbox.log)
        try namespace.start(monitor, on: queue)
        defer { monitor.cancel() }

        let first = try #require(inbox.next(), "no first batch; lost: \(inbox.lostReasons)")
        #expect(first.isFullState)
        let veth = try #require(first.links.first { $0.name == "va" }, "links: \(first.links.map(\.name))")
        #expect(veth.kind == "veth")
        #expect(veth.type == .other)
        #expect(first.addresses.contains { $0.interface == veth.index && $0.address == IPAddress("10.9.0.1") })
        #expect(first.addresses.contains { $0.interface == veth.index && $0.address == IPAddress("2001:db8:9::1") })
        #expect(first.lookups[.ipv4] == .route(RouteAnswer(
            type: .unicast, outputInterface: veth.index, gateway: IPAddress("10.9.0.2"), table: 254,
            preferredSource: IPAddress("10.9.0.1"))))
        if case .route(let answer) = first.lookups[.ipv6] {
            #expect(answer.gateway == IPAddress("2001:db8:9::2") && answer.outputInterface == veth.index)
        } else {
            Issue.record("IPv6 lookup: \(String(describing: first.lookups[.ipv6]))")
        }
        // No route is dumped or decoded; va (not lo) is asked about on its own, and its
        // answer is the default route's entry.
        func own(_ batch: EventBatch?, _ family: AddressFamily = .ipv4) -> RouteAnswer? {
            guard case .route(let answer)? = batch?.interfaceLookups[family]?[veth.index] else { return nil }
            return answer
        }
        #expect(first.interfaceLookups[.ipv4].map { Array($0.keys) } == [veth.index])
        #expect(own(first)?.entry == RouteEntry(prefixLength: 0) && own(first)?.gateway == IPAddress("10.9.0.2"))
        #expect(own(first, .ipv6)?.entry?.prefixLength == 0 && own(first, .ipv6)?.outputInterface == veth.index)

        // A covering route through va becomes its answer: a route without a gateway has
        // scope link, and `src` is the entry's RTA_PREFSRC.
        try namespace.ip("route", "add", "128.0.0.0/1", "dev", "va", "src", "10.9.0.1")
        let onLink = own(inbox.first { own($0)?.entry?.prefixLength == 1 })
        #expect(onLink?.entry?.scope == .link, "answer: \(String(describing: onLink))")
        #expect(onLink?.preferredSource == IPAddress("10.9.0.1"))
        try namespace.ip("route", "del", "128.0.0.0/1")

        // Each kind of default route, as the kernel answers RTM_GETROUTE for it.
        let cases: [(String?, RouteLookup)] = [
            ("unreachable", .rejected(.unreachable)),
            ("blackhole", .rejected(.blackhole)),
            ("prohibit", .rejected(.prohibit)),
            (nil, .noRoute),
        ]
        // A route message asks its own family again only: the answers are followed
        // across batches, as the evaluator's snapshot keeps them.
        var answers = first.lookups
        for (type, expected) in cases {
            for family in ["-4", "-6"] {
                if let type {
                    try namespace.ip(family, "route", "replace", type, "default")
                } else {
                    try namespace.ip(family, "route", "del", "default")
                }
            }
            let batch = inbox.first { batch in
                answers.merge(batch.lookups) { $1 }
                return answers[.ipv4] == expected && answers[.ipv6] == expected
            }
            #expect(batch != nil,
                    "no batch with \(expected) for \(type ?? "no default route"); lost: \(inbox.lostReasons)")
            #expect(batch?.isFullState == false)
        }

        // Admin-down: IPv4 routes go without RTM_DELROUTE; the link event still re-runs lookups.
        try namespace.ip("route", "add", "default", "via", "10.9.0.2")
        #expect(inbox.first { $0.lookups[.ipv4] == .route(RouteAnswer(
            type: .unicast, outputInterface: veth.index, gateway: IPAddress("10.9.0.2"), table: 254,
            preferredSource: IPAddress("10.9.0.1"))) } != nil)
        try namespace.ip("link", "set", "va", "down")
        let down = inbox.first { batch in batch.links.contains { $0.name == "va" && !$0.flags.contains(.up) } }
        #expect(down != nil, "no link-down batch")
        if down?.lookups[.ipv4] != .noRoute {
            #expect(inbox.first { $0.lookups[.ipv4] == .noRoute } != nil, "IPv4 lookup never became noRoute")
        }
        #expect(inbox.lostReasons.isEmpty)
    }

    @Test func overrunEndsTheInstanceWithLost() throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        try namespace.ip("link", "set", "lo", "up")

        let queue = DispatchQueue(label: "pathd.test.netlink.overrun")
        let inbox = BatchInbox()
        // The smallest buffer the kernel allows: a few thousand route events overflow it.
        let monitor = NetlinkMonitor(generation: Generation(rawValue: 9), queue: queue,
                                     configuration: NetlinkConfiguration(receiveBufferBytes: 4096),
                                     deliver: inbox.deliver, lost: inbox.lost, log: inbox.log)
        try namespace.start(monitor, on: queue)
        defer { monitor.cancel() }
        #expect(inbox.next()?.isFullState == true)

        // Hold the queue so nothing is read while the kernel sends 3000 route events.
        // Each covers the lookup destination (in its own table), so the route filter
        // passes them all: routes it drops could never fill the buffer.
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        // Released below; on an early throw, released here, or the cancel above deadlocks.
        var released = false
        defer { if !released { gate.signal() } }
        let batch = (1...3000).map { "route add unreachable 203.0.113.0/24 table \(1000 + $0)" }.joined(separator: "\n")
            + "\n"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(namespace.name).batch")
        try Data(batch.utf8).write(to: file)
        defer {
            do { try FileManager.default.removeItem(at: file) } catch { Issue.record("cleanup: \(error)") }
        }
        try namespace.ip("-batch", file.path)
        released = true
        gate.signal()

        #expect(inbox.next() == nil, "expected lost, not a batch")
        #expect(inbox.lostReasons == ["9: kernel receive buffer overrun (ENOBUFS): events lost"])
    }

    @Test func aPortNamesItsMasterUntilItLeaves() throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        try namespace.ip("link", "add", "br0", "type", "bridge")
        try namespace.ip("link", "add", "pa", "type", "veth", "peer", "name", "pb")
        try namespace.ip("link", "set", "br0", "up")

        let queue = DispatchQueue(label: "pathd.test.netlink.master")
        let inbox = BatchInbox()
        let monitor = NetlinkMonitor(generation: Generation(rawValue: 4), queue: queue,
                                     configuration: .standard,
                                     deliver: inbox.deliver, lost: inbox.lost, log: inbox.log)
        try namespace.start(monitor, on: queue)
        defer { queue.sync { monitor.cancel() } }
        let first = try #require(inbox.next(), "no first batch; lost: \(inbox.lostReasons)")
        let bridge = try #require(first.links.first { $0.name == "br0" })
        #expect(bridge.kind == "bridge" && bridge.aggregatesPorts && bridge.master == nil)
        // The kernel's quirk this decides against: a bridge that never had a port is running.
        #expect(bridge.flags.contains(.running) && bridge.operState == .unknown)
        #expect(first.links.first { $0.name == "pa" }?.master == nil)

        try namespace.ip("link", "set", "pa", "master", "br0")
        #expect(inbox.first { $0.links.contains { $0.name == "pa" && $0.master == bridge.index } } != nil,
                "pa never named br0 as its master; lost: \(inbox.lostReasons)")
        try namespace.ip("link", "set", "pa", "nomaster")
        #expect(inbox.first { $0.links.contains { $0.name == "pa" && $0.master == nil } } != nil,
                "pa still names a master after leaving; lost: \(inbox.lostReasons)")
    }
}

extension NetworkNamespace {
    /// Starts `monitor` with its sockets created inside this namespace: the namespace's
    /// thread runs `start()`, which opens the sockets through `queue.sync` on the calling thread.
    func start(_ monitor: NetlinkMonitor, on queue: DispatchQueue) throws {
        try onJoinedThread {
            let caller = pthread_self()
            try queue.sync {
                guard pthread_equal(caller, pthread_self()) != 0 else {
                    throw HarnessError("queue.sync ran on another thread; sockets would not be in the namespace")
                }
            }
            // start() opens the sockets through the monitor queue's `sync`, on this thread.
            monitor.start()
        }
    }
}
