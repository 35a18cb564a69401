// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing
@testable import Netlink

/// Which lookups a monitor asks again after the changes it read (`LookupStaleness`), and
/// what a changed gateway set asks for once its batch is delivered (`NeighbourWatch`):
/// the rules, without a socket. The kernel tests (`StaleInterfaceLookupTests`,
/// `WatchedRouteRoundTests`) show that asking this little answers as asking everything.
struct LookupStalenessTests {
    static let a = InterfaceIndex(rawValue: 2)
    static let b = InterfaceIndex(rawValue: 3)
    static let c = InterfaceIndex(rawValue: 4)
    static let bridge = InterfaceIndex(rawValue: 10)

    static func link(_ index: InterfaceIndex, up: Bool = true, master: InterfaceIndex? = nil) -> Link {
        Link(index: index, name: "eth\(index.rawValue)", flags: up ? [.up, .running, .lowerUp] : [],
             operState: up ? .up : .down, hardwareType: .ether, type: .wiredEthernet, master: master)
    }

    /// A clock whose first, full batch brought links a, b and c up.
    static func started(generation: Generation = .first) -> LookupStaleness {
        var staleness = LookupStaleness(generation: generation)
        staleness.take([a, b, c].map { .linkChanged(link($0)) }, isFullState: true)
        staleness.batchDelivered()
        return staleness
    }

    /// What the next batch asks after `events` were read and taken.
    static func nextLookups(_ staleness: inout LookupStaleness,
                            _ events: [NetworkEvent]) -> (families: [AddressFamily], links: [InterfaceIndex]) {
        for event in events { staleness.read(event) }
        staleness.take(events, isFullState: false)
        return staleness.lookups
    }

    @Test("a generation's first batch asks both families through every link that is up")
    func firstBatchAsksEverything() {
        var staleness = LookupStaleness(generation: .first)
        staleness.take([.linkChanged(Self.link(Self.a)), .linkChanged(Self.link(Self.b)),
                        .linkChanged(Self.link(Self.c, up: false))], isFullState: true)
        #expect(staleness.lookups.families == [.ipv4, .ipv6])
        #expect(staleness.lookups.links == [Self.a, Self.b])
        staleness.batchDelivered()
        #expect(!staleness.hasStaleFamilies && staleness.lookups.links.isEmpty, "nothing is stale after the batch")
    }

    @Test("a route message makes its family stale and the links it goes through, no other")
    func routeMessage() {
        var staleness = Self.started()
        staleness.routeChanged(families: [.ipv6]) { .some([Self.b]) }
        #expect(staleness.hasStaleFamilies)
        staleness.take([], isFullState: false)
        #expect(staleness.lookups.families == [.ipv6])
        #expect(staleness.lookups.links == [Self.b])
    }

    @Test("a route message is not read for its links once every link is stale")
    func routeLinksNotReadWhenAllStale() {
        var staleness = Self.started()
        staleness.routeChanged(families: [.ipv4]) { .all }
        staleness.routeChanged(families: [.ipv4]) {
            Issue.record("the links of a route message were read while every link was stale")
            return .none
        }
        staleness.take([], isFullState: false)
        #expect(staleness.lookups.links == [Self.a, Self.b, Self.c])
    }

    @Test("an address or a rule makes its own family stale through every link")
    func addressAndRule() {
        var staleness = Self.started()
        let address = InterfaceAddress(interface: Self.a, address: IPAddress("192.0.2.1")!, prefixLength: 24)
        #expect(Self.nextLookups(&staleness, [.addressChanged(address)]) == ([.ipv4], [Self.a, Self.b, Self.c]))
        staleness.batchDelivered()
        let removed = InterfaceAddress.Key(interface: Self.b, address: IPAddress("2001:db8::1")!, prefixLength: 64)
        #expect(Self.nextLookups(&staleness, [.addressRemoved(removed)]) == ([.ipv6], [Self.a, Self.b, Self.c]))
        staleness.batchDelivered()
        let rule = RoutingRule(family: .ipv6, priority: 500, action: .lookup(table: 254))
        #expect(Self.nextLookups(&staleness, [.ruleAdded(rule)]) == ([.ipv6], [Self.a, Self.b, Self.c]))
        staleness.batchDelivered()
        #expect(Self.nextLookups(&staleness, [.ruleRemoved(rule)]) == ([.ipv6], [Self.a, Self.b, Self.c]))
    }

    @Test("a link message makes both families stale through that link; a master's, through every link")
    func linkMessage() {
        var staleness = Self.started()
        #expect(Self.nextLookups(&staleness, [.linkChanged(Self.link(Self.b))]) == ([.ipv4, .ipv6], [Self.b]))
        staleness.batchDelivered()
        // c joins a bridge: the bridge is a master from now on.
        _ = Self.nextLookups(&staleness, [.linkChanged(Self.link(Self.c, master: Self.bridge))])
        staleness.batchDelivered()
        #expect(Self.nextLookups(&staleness, [.linkChanged(Self.link(Self.bridge))])
                == ([.ipv4, .ipv6], [Self.a, Self.b, Self.c, Self.bridge]))
        staleness.batchDelivered()
        #expect(Self.nextLookups(&staleness, [.linkRemoved(Self.bridge)])
                == ([.ipv4, .ipv6], [Self.a, Self.b, Self.c]), "a master that goes reaches every link")
    }

    @Test("a link that goes down or goes carries no lookups")
    func linkDownOrGone() {
        var staleness = Self.started()
        _ = Self.nextLookups(&staleness, [.linkChanged(Self.link(Self.b, up: false)), .linkRemoved(Self.c)])
        #expect(staleness.lookupInterfaces == [Self.a])
        #expect(staleness.lookups.links.isEmpty, "neither is asked about")
    }

    @Test("a neighbour or a carrier change makes nothing stale")
    func noRouteChange() {
        var staleness = Self.started()
        let at = MonotonicInstant(sinceBoot: .seconds(1))
        let gateway = Neighbour.Key(interface: Self.a, address: IPAddress("192.0.2.254")!)
        let events: [NetworkEvent] = [.neighbourRemoved(gateway), .carrierLost(Self.a, at: at),
                                      .carrierRegained(Self.a, at: at)]
        #expect(Self.nextLookups(&staleness, events) == ([], []))
        #expect(!staleness.hasStaleFamilies)
    }

    @Test("a watched answer is asked again through the links a delivered batch made stale, and those it lacks")
    func watchedAnswerStaleLinks() {
        var staleness = Self.started()
        let links = [Self.a, Self.b, Self.c]
        let answer = RouteLookup.noRoute
        let known = KnownAnswers(throughInterface: [Self.a: answer, Self.b: answer], askedAt: staleness.now)
        #expect(staleness.linksToAsk(known: nil, among: links) == links, "no answer kept: every link")
        #expect(staleness.linksToAsk(known: known, among: links) == [Self.c], "nothing changed: only the one it lacks")
        staleness.routeChanged(families: [.ipv4]) { .some([Self.b]) }
        _ = Self.nextLookups(&staleness, [])
        staleness.batchDelivered()
        #expect(staleness.linksToAsk(known: known, among: links) == [Self.b, Self.c])
        // Asked again after that batch: nothing is stale until the next.
        let again = KnownAnswers(throughInterface: [Self.a: answer, Self.b: answer, Self.c: answer],
                                 askedAt: staleness.now)
        #expect(staleness.linksToAsk(known: again, among: links).isEmpty)
        // A route change of the other family still makes the link's answers stale: a
        // watched destination's answers are per link, whatever its family.
        staleness.routeChanged(families: [.ipv6]) { .some([Self.a]) }
        _ = Self.nextLookups(&staleness, [])
        staleness.batchDelivered()
        #expect(staleness.linksToAsk(known: again, among: links) == [Self.a])
    }

    @Test("a change read before a watched answer was asked, and delivered after, makes it stale")
    func changeReadNotDelivered() {
        var staleness = Self.started()
        let links = [Self.a, Self.b, Self.c]
        staleness.routeChanged(families: [.ipv4]) { .some([Self.c]) }
        // Asked while the change waits in the batch: it may or may not have seen it.
        let known = KnownAnswers(throughInterface: Dictionary(uniqueKeysWithValues: links.map { ($0, .noRoute) }),
                                 askedAt: staleness.now)
        #expect(staleness.linksToAsk(known: known, among: links).isEmpty, "not stale before the batch")
        _ = Self.nextLookups(&staleness, [])
        staleness.batchDelivered()
        #expect(staleness.linksToAsk(known: known, among: links) == [Self.c], "asked again, never missed")
    }

    @Test("a batch that reaches every link makes every watched answer stale")
    func everyLinkStale() {
        var staleness = Self.started()
        let links = [Self.a, Self.b, Self.c]
        let known = KnownAnswers(throughInterface: Dictionary(uniqueKeysWithValues: links.map { ($0, .noRoute) }),
                                 askedAt: staleness.now)
        let rule = RoutingRule(family: .ipv4, priority: 500, action: .lookup(table: 254))
        _ = Self.nextLookups(&staleness, [.ruleAdded(rule)])
        staleness.batchDelivered()
        #expect(staleness.linksToAsk(known: known, among: links) == links)
    }

    @Test("known answers are kept through current links only, and never another generation's")
    func keptAnswers() {
        let staleness = Self.started(generation: Generation(rawValue: 2))
        let links = [Self.a, Self.b, Self.c]
        let answers = Dictionary(uniqueKeysWithValues: links.map { ($0, RouteLookup.noRoute) })
        let current = KnownAnswers(throughInterface: answers, askedAt: staleness.now)
        #expect(staleness.kept(current, among: [Self.a, Self.c]) == [Self.a: .noRoute, Self.c: .noRoute])
        let older = KnownAnswers(throughInterface: answers, askedAt: LookupStamp(generation: .first, batch: 1))
        #expect(staleness.linksToAsk(known: older, among: links) == links, "another monitor's clock")
        #expect(staleness.kept(older, among: Set(links)).isEmpty)
    }

    @Test("a changed gateway set asks, once its batch is delivered, for the filter and the new gateways' entries")
    func gatewayFollowUp() {
        var watch = NeighbourWatch()
        let first = IPAddress("192.0.2.1")!
        let second = IPAddress("192.0.2.2")!
        func lookups(_ gateways: [InterfaceIndex: IPAddress]) -> [NetworkEvent] {
            gateways.map { index, gateway in
                .interfaceLookup(.ipv4, index, .route(RouteAnswer(type: .unicast, outputInterface: index,
                                                                  gateway: gateway)))
            }
        }
        #expect(watch.takeFollowUp() == nil, "nothing changed: the filter is current")
        _ = watch.noteGateways(in: lookups([Self.a: first]), asked: [Self.a, Self.b])
        #expect(watch.takeFollowUp() == [Neighbour.Key(interface: Self.a, address: first)])
        #expect(watch.takeFollowUp() == nil, "asked for once")
        // b's gateway comes and goes before the follow-up: the filter is to be attached,
        // and b's entry is not read (it is no gateway).
        _ = watch.noteGateways(in: lookups([Self.b: second]), asked: [Self.a, Self.b])
        _ = watch.noteGateways(in: [], asked: [Self.a])
        #expect(watch.takeFollowUp() == [])
        // The same set again: nothing to follow.
        _ = watch.noteGateways(in: lookups([Self.a: first]), asked: [Self.a])
        #expect(watch.takeFollowUp() == nil)
    }
}
