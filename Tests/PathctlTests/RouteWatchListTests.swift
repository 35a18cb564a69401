// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing
@testable import pathctl

/// What `monitor --route` and `wait --route` subscribe to, and how a name's new addresses
/// after a path change turn into requests (the resolver is the test's).
@Suite("route watch list")
struct RouteWatchListTests {
    /// A resolver whose answers the test changes. `@unchecked Sendable`: `RouteHost`
    /// calls the resolver synchronously, on the test's own thread, between the test's
    /// changes to `addresses`; nothing reads it from another thread.
    final class Names: @unchecked Sendable {
        var addresses: [String: [IPAddress]] = [:]
        /// How many times a name was resolved.
        var asked = 0
        var resolve: RouteHost.Resolver {
            { [self] name in
                asked += 1
                return .success(addresses[name] ?? [])
            }
        }
    }

    static func ip(_ text: String) -> IPAddress { IPAddress(text)! }

    @Test("the path, then one route subscription per address, each host once; a zone goes as interface")
    func requests() {
        let names = Names()
        names.addresses["db.example.org"] = [Self.ip("2001:db8::7"), Self.ip("192.0.2.10")]
        let watch = RouteWatchList(["db.example.org", "fe80::1%eth0", "db.example.org"], resolver: names.resolve)
        #expect(watch.requests() == [
            Request(.subscribe(.path(.any)), id: RouteWatchList.pathID),
            Request(.subscribe(.route(destination: Self.ip("2001:db8::7"))), id: .string("db.example.org 2001:db8::7")),
            Request(.subscribe(.route(destination: Self.ip("192.0.2.10"))), id: .string("db.example.org 192.0.2.10")),
            Request(.subscribe(.route(destination: Self.ip("fe80::1"), interface: "eth0")),
                    id: .string("fe80::1%eth0 fe80::1")),
        ])
    }

    @Test("after a path change a name's gone addresses are unsubscribed and its new ones subscribed")
    func resolvedAgain() {
        let names = Names()
        names.addresses["db.example.org"] = [Self.ip("192.0.2.10")]
        let watch = RouteWatchList(["db.example.org", "192.0.2.99"], resolver: names.resolve)
        _ = watch.requests()
        #expect(watch.pathChanged().requests.isEmpty, "nothing changed")
        names.addresses["db.example.org"] = [Self.ip("198.51.100.10")]
        let (requests, changed) = watch.pathChanged()
        #expect(changed == [0])
        #expect(requests == [
            Request(.unsubscribe, id: .string("db.example.org 192.0.2.10")),
            Request(.subscribe(.route(destination: Self.ip("198.51.100.10"))),
                    id: .string("db.example.org 198.51.100.10")),
        ])
        // A line of the old address that was on its way is no longer the host's.
        let old = RouteUpdate(generation: .first, sequence: 2,
                              report: RouteReport(destination: Self.ip("192.0.2.10"), status: .satisfied))
        #expect(watch.received(old, id: .string("db.example.org 192.0.2.10"), line: []) == nil)
        let new = RouteUpdate(generation: .first, sequence: 1,
                              report: RouteReport(destination: Self.ip("198.51.100.10"), status: .satisfied))
        #expect(watch.received(new, id: .string("db.example.org 198.51.100.10"), line: []) != nil)
        #expect(watch.unmet == ["192.0.2.99: not answered yet"])
    }

    @Test("the first path line resolves nothing again (init has just resolved); the next one does")
    func firstPathLineResolvesNothing() {
        let names = Names()
        names.addresses["db.example.org"] = [Self.ip("192.0.2.10")]
        let watch = RouteWatchList(["db.example.org"], resolver: names.resolve)
        _ = watch.requests()
        let asked = names.asked
        #expect(watch.pathLine().requests.isEmpty)
        #expect(names.asked == asked, "resolved again on the first path line")
        names.addresses["db.example.org"] = [Self.ip("198.51.100.10")]
        #expect(watch.pathLine().changedHosts == [0])
        #expect(names.asked == asked + 1)
    }

    @Test("a name with no address is unmet until it resolves, and no answer is the whole of it")
    func unresolved() {
        let names = Names()
        let watch = RouteWatchList(["db.example.org"], resolver: names.resolve)
        #expect(watch.requests() == [Request(.subscribe(.path(.any)), id: RouteWatchList.pathID)])
        #expect(watch.unmet == ["db.example.org: the resolver returned no address"])
        #expect(!watch.isAnswered)
        names.addresses["db.example.org"] = [Self.ip("192.0.2.10")]
        #expect(watch.pathChanged().changedHosts == [0])
        let report = RouteReport(destination: Self.ip("192.0.2.10"), status: .unsatisfied, unsatisfiedReason: .noRoute)
        _ = watch.received(RouteUpdate(generation: .first, sequence: 1, report: report),
                           id: .string("db.example.org 192.0.2.10"), line: [])
        #expect(watch.isAnswered && !watch.isUsable)
        #expect(watch.unmet == ["db.example.org: unsatisfied: no route to 192.0.2.10"])
    }
}
