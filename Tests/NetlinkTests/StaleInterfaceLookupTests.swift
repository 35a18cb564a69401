// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Glibc
import PathModel
import PathTestFixtures
import Testing
@testable import Netlink

/// Only the links a change could affect are asked again (`StaleInterfaces`), and what the
/// evaluator's snapshot ends with is what asking every link would say.
@Suite(.enabled(if: namespaceSupport.isAvailable, "needs root and ip netns: \(namespaceSupport.reason)"), .blocking)
struct StaleInterfaceLookupTests {
    /// a0, b0 and c0 to a peer, each with its own default route in both families.
    final class ThreeUplinks {
        let namespace: NetworkNamespace
        let peer: NetworkNamespace
        var indices: [String: InterfaceIndex] = [:]

        init() throws {
            namespace = try NetworkNamespace()
            peer = try NetworkNamespace()
            // No address of its own making (no link-local address, no DAD, addresses kept
            // over admin down): an address message makes every answer stale, and a late
            // one would hide a route change that asked too little.
            try namespace.run("sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0",
                              "net.ipv6.conf.default.addr_gen_mode=1", "net.ipv6.conf.default.keep_addr_on_down=1",
                              "net.ipv6.conf.all.keep_addr_on_down=1")
            try namespace.ip("link", "set", "lo", "up")
            for (number, name) in ["a0", "b0", "c0"].enumerated() {
                let subnet = number + 1
                try namespace.ip("link", "add", name, "type", "veth", "peer", "name", "p\(name)", "netns", peer.name)
                try namespace.ip("link", "set", name, "up")
                try peer.ip("link", "set", "p\(name)", "up")
                try namespace.ip("addr", "add", "10.\(subnet).0.1/24", "dev", name)
                try namespace.ip("-6", "addr", "add", "2001:db8:\(subnet)::1/64", "dev", name, "nodad")
                try namespace.ip("route", "add", "default", "via", "10.\(subnet).0.2", "metric", "\(subnet * 100)")
                try namespace.ip("-6", "route", "add", "default", "via", "2001:db8:\(subnet)::2",
                                 "metric", "\(subnet * 100)")
                indices[name] = try InterfaceLookupKernelTests.TwoUplinks.index(of: name, in: namespace)
            }
        }

        deinit {
            teardown("remove namespace \(namespace.name)") { try namespace.remove() }
            teardown("remove namespace \(peer.name)") { try peer.remove() }
        }

        func index(_ name: String) -> InterfaceIndex { indices[name] ?? InterfaceIndex(rawValue: 0) }

        /// A monitor started inside the namespace, delivering to `inbox`.
        func startMonitor(_ inbox: BatchInbox, generation: UInt64) throws -> NetlinkMonitor {
            let queue = DispatchQueue(label: "pathd.test.netlink.stale.\(generation)")
            let monitor = NetlinkMonitor(generation: Generation(rawValue: generation), queue: queue,
                                         configuration: .standard,
                                         deliver: inbox.deliver, lost: inbox.lost, log: inbox.log)
            try namespace.start(monitor, on: queue)
            return monitor
        }
    }

    /// The links a batch asked about on their own, per family.
    static func asked(_ batch: EventBatch?) -> [AddressFamily: Set<InterfaceIndex>] {
        (batch?.interfaceLookups ?? [:]).mapValues { Set($0.keys) }
    }

    @Test("""
        a route or link change asks its own link again; an address or a rule change asks every link; \
        a route, address or rule of one family asks that family only
        """)
    func onlyTheAffectedLinksAreAsked() throws {
        let host = try ThreeUplinks()
        let inbox = BatchInbox()
        let monitor = try host.startMonitor(inbox, generation: 1)
        defer { monitor.cancel() }
        let everyLink: Set = [host.index("a0"), host.index("b0"), host.index("c0")]

        let first = try #require(inbox.next(), "no first batch; lost: \(inbox.lostReasons)")
        #expect(first.isFullState)
        #expect(Self.asked(first) == [.ipv4: everyLink, .ipv6: everyLink])

        // An IPv4 route through b0 that covers the lookup destination: b0 alone is asked,
        // and only in IPv4 (no IPv6 answer reads an IPv4 table).
        try host.namespace.ip("route", "add", "203.0.113.0/24", "via", "10.2.0.2", "dev", "b0")
        let viaB = inbox.first { batch in
            guard case .route(let answer)? = batch.interfaceLookups[.ipv4]?[host.index("b0")] else { return false }
            return answer.entry?.prefixLength == 24
        }
        #expect(viaB != nil, "b0's answer never became the /24; lost: \(inbox.lostReasons)")
        #expect(Self.asked(viaB) == [.ipv4: [host.index("b0")]])
        #expect(viaB.map { Set($0.lookups.keys) } == [.ipv4], "an IPv4 route asked IPv6 again")

        // An IPv6 route through c0: c0 alone, in IPv6 alone.
        try host.namespace.ip("-6", "route", "add", "2000::/3", "via", "2001:db8:3::2", "dev", "c0")
        let viaC = inbox.first { batch in
            guard case .route(let answer)? = batch.interfaceLookups[.ipv6]?[host.index("c0")] else { return false }
            return answer.entry?.prefixLength == 3
        }
        #expect(viaC != nil, "c0's answer never became the /3; lost: \(inbox.lostReasons)")
        #expect(Self.asked(viaC) == [.ipv6: [host.index("c0")]])
        #expect(viaC.map { Set($0.lookups.keys) } == [.ipv6], "an IPv6 route asked IPv4 again")

        // Carrier loss on c0 (its peer goes down): c0's link message, c0 alone asked.
        try host.peer.ip("link", "set", "pc0", "down")
        let carrier = inbox.first { batch in
            batch.links.contains { $0.name == "c0" && $0.linkState == .noCarrier }
        }
        #expect(carrier != nil, "c0's carrier loss never arrived; lost: \(inbox.lostReasons)")
        #expect(Self.asked(carrier) == [.ipv4: [host.index("c0")], .ipv6: [host.index("c0")]])

        // An address on a0 can end a route through any link (one naming it as its source).
        try host.namespace.ip("addr", "add", "10.1.0.9/24", "dev", "a0")
        let address = inbox.first { batch in batch.addresses.contains { $0.address == IPAddress("10.1.0.9") } }
        #expect(Self.asked(address) == [.ipv4: everyLink])

        // A rule changes every lookup.
        try host.namespace.ip("rule", "add", "pref", "500", "lookup", "main")
        let rule = inbox.first { batch in
            batch.events.contains { if case .ruleAdded(let rule) = $0 { rule.priority == 500 } else { false } }
        }
        #expect(Self.asked(rule) == [.ipv4: everyLink])

        // A reject route names no link: every link is asked again.
        try host.namespace.ip("route", "add", "unreachable", "203.0.113.0/25")
        let reject = inbox.first { $0.lookups[.ipv4] == .rejected(.unreachable) }
        #expect(Self.asked(reject)[.ipv4] == everyLink, "batch: \(String(describing: reject?.events))")
        #expect(inbox.lostReasons.isEmpty)
    }

    @Test("after routes, hops, reject routes and carrier changes the snapshot is what asking every link says")
    func incrementalAnswersEqualAFreshFullState() throws {
        let host = try ThreeUplinks()
        let inbox = BatchInbox()
        let monitor = try host.startMonitor(inbox, generation: 1)
        defer { monitor.cancel() }
        let first = try #require(inbox.next(), "no first batch; lost: \(inbox.lostReasons)")
        var snapshot = Snapshot(events: first.events)

        /// Applies every batch to `snapshot` until one satisfies `condition`.
        func apply(until condition: (EventBatch) -> Bool, _ what: String) throws {
            while true {
                let batch = try #require(inbox.next(), "\(what) never arrived; lost: \(inbox.lostReasons)")
                for event in batch.events { snapshot.apply(event) }
                if condition(batch) { return }
            }
        }
        func carrier(_ name: String, _ state: LinkState) -> (EventBatch) -> Bool {
            { batch in batch.links.contains { $0.name == name && $0.linkState == state } }
        }

        // Links first: a link going down can take addresses with it, and an address
        // makes every answer stale, which would hide a route change asked about too
        // little. Carrier follows the peer through the kernel's link watch, later than
        // any route message: each link change is waited for before the next.
        try host.namespace.ip("link", "set", "b0", "down")
        try apply(until: carrier("b0", .adminDown), "b0 going down")
        try host.namespace.ip("link", "set", "b0", "up")
        try apply(until: carrier("b0", .usable), "b0's carrier")
        try host.peer.ip("link", "set", "pa0", "down")
        try apply(until: carrier("a0", .noCarrier), "a0's carrier loss")
        // Then only routes, each of which makes its own links stale (or all of them).
        let routes: [[String]] = [
            ["route", "add", "203.0.113.0/24", "via", "10.2.0.2", "dev", "b0"],
            ["-6", "route", "add", "2000::/3", "via", "2001:db8:3::2", "dev", "c0"],
            ["route", "add", "203.0.113.0/25", "nexthop", "via", "10.1.0.2", "dev", "a0",
             "nexthop", "via", "10.3.0.2", "dev", "c0"],
            ["route", "del", "default", "via", "10.1.0.2"],
            ["-6", "route", "add", "unreachable", "2000::/4"],
            ["route", "add", "unreachable", "203.0.113.0/27"],
            ["route", "del", "203.0.113.0/24"],
            ["route", "add", "default", "via", "10.2.0.2", "dev", "b0", "metric", "50"],
        ]
        for route in routes { try host.namespace.ip(route) }
        // Last, a marker that makes no answer stale: a new link, down, asked nothing.
        try host.namespace.ip("link", "add", "m0", "type", "veth", "peer", "name", "m1")
        try apply(until: { $0.links.contains { $0.name == "m0" } }, "the marker link")
        // Both monitors now read the same tables: the first one's answers, kept per
        // link across batches, must be the second one's, all asked at once.
        let fresh = BatchInbox()
        let second = try host.startMonitor(fresh, generation: 2)
        defer { second.cancel() }
        let full = try #require(fresh.next(), "no first batch from a fresh monitor; lost: \(fresh.lostReasons)")
        #expect(full.isFullState)
        #expect(snapshot.interfaceLookups == Snapshot(events: full.events).interfaceLookups)
        #expect(snapshot.lookups == Snapshot(events: full.events).lookups)
        #expect(inbox.lostReasons.isEmpty && fresh.lostReasons.isEmpty)
    }
}
