// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Which of a monitor's route lookups must be asked again after the changes it read: a
/// value, with no socket, that `NetlinkMonitor` feeds with what it reads and asks before
/// each lookup. Two kinds of answers are kept elsewhere and asked again only when stale:
///
/// - The default path's lookups, asked with each batch (`NetlinkMonitor.lookups()`):
///   the route of each stale family (`families`), and through each link that carries
///   lookups (`lookupInterfaces`) and is stale (`interfaces`, `StaleInterfaces`). A route,
///   an address or a rule message is of one family, and no answer of the other reads it
///   (an IPv4 lookup never walks IPv6 tables, rules or addresses); a link message makes
///   both stale. The evaluator's snapshot keeps the answers not asked again.
/// - A watched destination's answers through each link, asked after a batch by whoever
///   watches it (`RouteWatcher` keeps them and hands them back, `RouteQuestion.known`):
///   the clock below says, per link, the number of the last delivered batch whose
///   events could have changed its answers, so an answer asked before that batch is
///   asked again (`linksToAsk`). A change read but not yet delivered makes the answer
///   stale at the batch that delivers it: asked again, never missed.
///
/// Used on the monitor's queue only.
struct LookupStaleness {
    let generation: Generation
    /// The families whose answers something since the last batch could have changed.
    private(set) var families: AddressFamilies = []
    /// The links that are up and not loopback, as the taken link events left them: each
    /// gets its own lookups. A link that is down is refused by the kernel before any
    /// table is read, so it is not asked about.
    private(set) var lookupInterfaces: Set<InterfaceIndex> = []
    /// Of `lookupInterfaces`, those whose own lookups the events since the last batch
    /// could have changed. Every link at first: a generation's first batch is the full state.
    private(set) var interfaces = StaleInterfaces.all
    /// The links some link names as its master (IFLA_MASTER: a bridge, a bond, a VRF):
    /// a change of one of these makes every link's lookups stale. Only grows; a master
    /// that is no longer one costs a few extra lookups.
    private var masters: Set<InterfaceIndex> = []
    /// The batches delivered so far; per link, the number of the last one that made its
    /// answers stale (only links asked through count; a link that goes is forgotten);
    /// `everyLinkStaleAt` for the batches that made every link stale.
    private var deliveredBatches = 0
    private var linkStaleAt: [InterfaceIndex: Int] = [:]
    private var everyLinkStaleAt = 0

    init(generation: Generation) {
        self.generation = generation
    }

    /// A route message of `families` was read. `links` are the links it goes through
    /// (`StaleInterfaces.of(route:)`), only read when some link is not stale yet.
    mutating func routeChanged(families: AddressFamilies, links: () -> StaleInterfaces) {
        self.families.formUnion(families)
        if interfaces != .all { interfaces.formUnion(links()) }
    }

    /// A decoded event was read: its families are stale (`families(of:)`). Its links
    /// become stale when the batch is taken (`take`), in order with the link events.
    mutating func read(_ event: NetworkEvent) {
        families.formUnion(Self.families(of: event))
    }

    /// Whether a batch has lookups to ask.
    var hasStaleFamilies: Bool { !families.isEmpty }

    /// The families whose answers a decoded event can change: an address's or a rule's
    /// own, both for a link, none for a neighbour or a router's option (they change no
    /// route) or a carrier change (it comes with its link's message).
    static func families(of event: NetworkEvent) -> AddressFamilies {
        switch event {
        case .addressChanged(let address): AddressFamilies(address.family)
        case .addressRemoved(let key): AddressFamilies(key.address.family)
        case .ruleAdded(let rule), .ruleRemoved(let rule): AddressFamilies(rule.family)
        case .linkChanged, .linkRemoved, .routeLookup, .interfaceLookup: .all
        case .neighbourChanged, .neighbourRemoved, .carrierLost, .carrierRegained, .routerOption: []
        }
    }

    /// A batch is taken from `events` (a full state when `isFullState`: every family is
    /// asked): the links they change, and those that carry lookups from now on.
    mutating func take(_ events: [NetworkEvent], isFullState: Bool) {
        if isFullState { families = .all }
        for event in events {
            switch event {
            case .linkChanged(let link):
                if link.hasOwnLookups {
                    lookupInterfaces.insert(link.index)
                } else {
                    lookupInterfaces.remove(link.index)
                }
                if let master = link.master { masters.insert(master) }
                if masters.contains(link.index) { interfaces = .all } else { interfaces.insert(link.index) }
            case .linkRemoved(let index):
                lookupInterfaces.remove(index)
                linkStaleAt[index] = nil
                if masters.contains(index) { interfaces = .all }
            case .addressChanged, .addressRemoved, .ruleAdded, .ruleRemoved:
                interfaces = .all
            case .routeLookup, .interfaceLookup, .neighbourChanged, .neighbourRemoved, .carrierLost, .carrierRegained,
                 .routerOption:
                // A neighbour or a router's option changes no route, and a carrier change
                // comes with its link's message.
                break
            }
        }
    }

    /// The batch's lookups: the stale families, IPv4 first, and the stale links among
    /// `lookupInterfaces`, in order.
    var lookups: (families: [AddressFamily], links: [InterfaceIndex]) {
        (families.families, interfaces.filter(lookupInterfaces.sorted()))
    }

    /// The batch was taken with its lookups: what was stale is stale for every watched
    /// answer asked before it, and nothing is stale for the next batch.
    mutating func batchDelivered() {
        families = []
        deliveredBatches += 1
        switch interfaces {
        case .all: everyLinkStaleAt = deliveredBatches
        case .some(let links):
            for link in links where lookupInterfaces.contains(link) { linkStaleAt[link] = deliveredBatches }
        }
        interfaces = .none
    }

    /// When an answer asked now is asked, by this clock.
    var now: LookupStamp { LookupStamp(generation: generation, batch: deliveredBatches) }

    /// Of a destination's `known` answers, those to keep: through the links of
    /// `current`, and none of another generation's.
    func kept(_ known: KnownAnswers?, among current: Set<InterfaceIndex>) -> [InterfaceIndex: RouteLookup] {
        guard let known, known.askedAt.generation == generation else { return [:] }
        return known.throughInterface.filter { current.contains($0.key) }
    }

    /// Of `links`, those to ask a destination through, given its `known` answers: all of
    /// them without any (or with another generation's: another monitor's clock), else
    /// those a delivered batch made stale since they were asked, and those it has no
    /// answer for.
    func linksToAsk(known: KnownAnswers?, among links: [InterfaceIndex]) -> [InterfaceIndex] {
        guard let known, known.askedAt.generation == generation else { return links }
        return links.filter { link in
            known.throughInterface[link] == nil
                || max(linkStaleAt[link] ?? 0, everyLinkStaleAt) > known.askedAt.batch
        }
    }
}
