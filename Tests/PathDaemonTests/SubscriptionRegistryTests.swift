// SPDX-License-Identifier: Apache-2.0
@testable import PathDaemon
import KernelState
import PathModel
import PathProtocol
import Testing

@Suite("subscription registry")
struct SubscriptionRegistryTests {
    let alice = ClientID(rawValue: 1)
    let bob = ClientID(rawValue: 2)
    let wifi = Criteria(requiredInterfaceType: .wifi)

    @Test("a subscription is found by its criteria, its client and its id")
    func indexes() {
        var registry = SubscriptionRegistry()
        let a = registry.add(client: alice, id: .string("w"), topic: .path(wifi)).key
        let b = registry.add(client: bob, id: .string("w"), topic: .path(wifi)).key
        let c = registry.add(client: alice, id: .integer(7), topic: .path(.any)).key
        #expect(Array(registry.subscribers(of: .path(wifi))) == [a, b])
        #expect(Array(registry.subscribers(of: .path(.any))) == [c])
        #expect(registry.count(of: alice) == 2)
        #expect(registry[c]?.idMember == Array(#","id":7"#.utf8))
        // Same id on another connection: untouched.
        #expect(registry.remove(client: alice, id: .string("w")).keys == [a])
        #expect(Array(registry.subscribers(of: .path(wifi))) == [b])
        #expect(registry.count(of: alice) == 1)
        #expect(registry.remove(client: alice, id: .string("w")).keys.isEmpty, "already gone")
    }

    @Test("a topic's subscribers come oldest first, across connections, removals and the holes they leave")
    func subscriptionOrder() {
        var registry = SubscriptionRegistry()
        var expected: [SubscriptionKey] = []
        // Three connections subscribing in turn, then most of them leaving (enough to
        // close the holes), then more coming: the order is always the order of subscribing.
        for index in 0..<300 {
            let client = ClientID(rawValue: UInt64(index % 3 + 1))
            expected.append(registry.add(client: client, id: .integer(Int64(index)), topic: .path(wifi)).key)
        }
        #expect(Array(registry.subscribers(of: .path(wifi))) == expected)
        for index in stride(from: 0, to: 300, by: 3) where index % 4 != 0 {
            _ = registry.remove(client: alice, id: .integer(Int64(index)))
        }
        _ = registry.removeAll(of: bob)
        expected.removeAll { $0.client == bob || ($0.client == alice && $0.number % 4 != 0) }
        #expect(Array(registry.subscribers(of: .path(wifi))) == expected)
        for index in 300..<310 {
            let client = ClientID(rawValue: UInt64(index % 2 == 0 ? 1 : 4))
            expected.append(registry.add(client: client, id: .integer(Int64(index)), topic: .path(wifi)).key)
        }
        #expect(Array(registry.subscribers(of: .path(wifi))) == expected)
        #expect(registry.subscribers(of: .path(wifi)).count == expected.count)
    }

    @Test("unsubscribing an id ends every subscription of the connection with it")
    func sharedIDs() {
        var registry = SubscriptionRegistry()
        let first = registry.add(client: alice, id: .string("x"), topic: .path(wifi)).key
        let second = registry.add(client: alice, id: .string("x"), topic: .path(.any)).key
        #expect(first != second)
        #expect(Set(registry.remove(client: alice, id: .string("x")).keys) == [first, second])
        #expect(registry.count == 0)
        #expect(registry.subscribedTopics.isEmpty, "no empty topic entry stays behind")
    }

    @Test("a closed connection loses all its subscriptions and nobody else's")
    func removeAll() {
        var registry = SubscriptionRegistry()
        for index in 0..<100 { _ = registry.add(client: alice, id: .integer(Int64(index)), topic: .path(wifi)) }
        let kept = registry.add(client: bob, id: nil, topic: .path(wifi)).key
        _ = registry.removeAll(of: alice)
        #expect(registry.count == 1)
        #expect(registry.count(of: alice) == 0)
        #expect(Array(registry.subscribers(of: .path(wifi))) == [kept])
        // Numbers are never reused within a connection's life.
        let again = registry.add(client: bob, id: nil, topic: .path(wifi)).key
        #expect(again.number == kept.number + 1)
    }

    @Test("route subscriptions count against their user over all its connections, from reservation until they end")
    func routesPerUser() {
        var registry = SubscriptionRegistry()
        let route = { (index: UInt32) in SubscriptionTopic.route(WatchedRoute(destination: .v4(0x0A00_0000 + index))) }
        for index: UInt32 in 0..<3 {
            registry.reserveRoute(for: 1000)
            _ = registry.add(client: alice, id: .integer(1), topic: route(index), countedUser: 1000)
        }
        // Reserved while its first answer is out: counted already, and again once only when added.
        registry.reserveRoute(for: 1000)
        #expect(registry.routes(countedAgainst: 1000) == 4)
        _ = registry.add(client: bob, id: .integer(2), topic: route(9), countedUser: 1000)
        #expect(registry.routes(countedAgainst: 1000) == 4)
        // One that made no subscription (its lookup failed) is given back.
        registry.reserveRoute(for: 1000)
        #expect(registry.routes(countedAgainst: 1000) == 5)
        registry.releaseReservedRoute(of: 1000)
        _ = registry.add(client: bob, id: .integer(3), topic: route(9), countedUser: nil)  // root's: counted nowhere
        _ = registry.add(client: bob, id: .integer(4), topic: .path(wifi))
        #expect(registry.routes(countedAgainst: 1000) == 4)
        #expect(registry.routes(countedAgainst: 1001) == 0)
        _ = registry.remove(client: alice, id: .integer(1))
        #expect(registry.routes(countedAgainst: 1000) == 1)
        _ = registry.removeAll(of: bob)
        #expect(registry.routes(countedAgainst: 1000) == 0)
    }
}

@Suite("connection budget")
struct ConnectionBudgetTests {
    @Test("one user cannot take more than its share; root keeps its headroom")
    func perUserAndHeadroom() {
        var budget = ConnectionBudget(maximumClients: 64, maximumPerUser: 40, trust: PeerTrust(daemonUserID: 999))
        #expect(budget.reservedForPrivileged == 2)
        for _ in 0..<40 { #expect(budget.refusal(for: 1000) == nil); budget.admit(1000) }
        #expect(budget.refusal(for: 1000)?.contains("uid 1000 already has 40") == true)
        for _ in 0..<22 { #expect(budget.refusal(for: 1001) == nil); budget.admit(1001) }
        // 62 of 64 taken: the last two are root's and pathd's.
        #expect(budget.refusal(for: 1002)?.contains("root") == true)
        #expect(budget.refusal(for: UInt32.max) != nil, "an unknown peer is not privileged")
        #expect(budget.refusal(for: 999) == nil)
        budget.admit(999)
        #expect(budget.refusal(for: 0) == nil)
        budget.admit(0)
        #expect(budget.refusal(for: 0)?.contains("at most 64 clients") == true)
        budget.release(1000)
        #expect(budget.connections(of: 1000) == 39)
        #expect(budget.refusal(for: 0) == nil)
    }

    @Test("with a single client the message reads right")
    func singular() {
        var budget = ConnectionBudget(maximumClients: 1, maximumPerUser: 1, trust: PeerTrust(daemonUserID: 0))
        budget.admit(0)
        #expect(budget.refusal(for: 0) == "pathd serves at most 1 client at once")
    }
}

@Suite("outgoing queue")
struct OutgoingQueueTests {
    private func drainAll(_ queue: inout OutgoingQueue) throws -> [UInt8] {
        var written: [UInt8] = []
        try queue.drain { bytes in
            written.append(contentsOf: bytes)
            return .success(bytes.count)
        }
        return written
    }

    @Test("replies never count as unread pushes; path lines supersede per subscription")
    func kinds() throws {
        var queue = OutgoingQueue()
        queue.append(Array(repeating: 0x61, count: 1000), kind: .reply)
        #expect(queue.pendingBytes == 1000)
        #expect(queue.pushedBytes == 0)
        queue.append(Array("p1\n".utf8), kind: .path(subscription: 1))
        queue.append(Array("r\n".utf8), kind: .push)
        queue.append(Array("q1\n".utf8), kind: .path(subscription: 2))
        queue.append(Array("p2\n".utf8), kind: .path(subscription: 1))
        #expect(queue.supersededCount == 1)
        #expect(queue.pushedBytes == 8)
        let written = try drainAll(&queue)
        #expect(String(decoding: written.dropFirst(1000), as: UTF8.self) == "r\nq1\np2\n")
        #expect(queue.isEmpty && queue.pushedBytes == 0)
    }

    @Test("a half-written path line is never dropped, the next one replaces only later lines")
    func halfWritten() throws {
        var queue = OutgoingQueue()
        queue.append(Array("first\n".utf8), kind: .path(subscription: 1))
        try queue.drain { bytes in .success(min(2, bytes.count)) }  // "fi" written, then full
        queue.append(Array("second\n".utf8), kind: .path(subscription: 1))
        queue.append(Array("third\n".utf8), kind: .path(subscription: 1))
        #expect(queue.supersededCount == 1)
        let written = try drainAll(&queue)
        #expect(String(decoding: written, as: UTF8.self) == "rst\nthird\n")
    }
}
