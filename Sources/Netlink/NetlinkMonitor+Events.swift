// SPDX-License-Identifier: Apache-2.0
import CLinux
import Dispatch
import PathModel
import SystemCalls

/// Reading, decoding and delivering: everything here runs on `queue`, but for
/// `readAndDeliver`, which the reader thread calls.
extension NetlinkMonitor {
    enum DrainOutcome {
        /// The socket said EAGAIN: everything queued was read.
        case caughtUp
        /// `messagesPerWakeup` messages were read and more may wait.
        case budgetExhausted
        /// Events were lost or the socket failed; why, for `lost`.
        case failed(SourceLoss)
    }

    /// On the reader thread, when the event socket is readable: reads and looks up on
    /// `queue` (`readable`), then delivers outside it, so that the receiver may publish
    /// on this thread. After `messagesPerWakeup` messages `queue` is given up to whatever
    /// waits on it (a route request's lookup) before the thread reads on.
    func readAndDeliver() -> ReadinessThread.Next {
        let (next, batch) = queue.sync { readable() }
        guard let batch else { return next }
        deliver(batch)
        if let follow = queue.sync(execute: { followGateways() }) { deliver(follow) }
        return next
    }

    /// What arrived, drained: the batch to deliver, if any, and what the reader does next.
    private func readable() -> (ReadinessThread.Next, EventBatch?) {
        guard case .running = state else { return (.stop, nil) }
        switch drainEvents() {
        case .caughtUp:
            return (.wait, flush())
        case .budgetExhausted:
            return (.callAgain, pending.count >= Self.maxPendingEvents ? flush() : nil)
        case .failed(let loss):
            fail(loss)
            return (.stop, nil)
        }
    }

    /// Receives until EAGAIN or `messagesPerWakeup` messages, decoding into `pending`.
    func drainEvents() -> DrainOutcome {
        guard let socket = eventSocket else { return .failed(.failure("event socket is closed")) }
        var handled = 0
        while handled < Self.messagesPerWakeup {
            switch socket.receive(into: buffer) {
            case .ok(let length):
                buffer.forEachMessage(length: length) { header in
                    handle(header)
                    handled += 1
                    return true
                }
            case .wouldBlock:
                return .caughtUp
            case .overrun:
                return .failed(.overrun)
            case .interrupted:
                continue  // libnl's -NLE_INTR only: receive(into:) never returns it; for exhaustiveness
            case .failed(let code):
                return .failed(.failure(NetlinkError(operation: "receive events", code: code).description))
            }
        }
        return .budgetExhausted
    }

    /// One multicast message. A route message is not decoded: it only means "look up
    /// again" (with the route filter attached, only routes that could change an answer
    /// get here).
    private func handle(_ header: UnsafeMutablePointer<nlmsghdr>) {
        switch Int(header.pointee.nlmsg_type) {
        case RTM_NEWROUTE, RTM_DELROUTE:
            staleFamilies.formUnion(Self.families(ofRoute: header))
            // Nothing to learn from the message when every link is stale already.
            if staleInterfaces != .all { staleInterfaces.formUnion(.of(route: header)) }
        case RTM_NEWNDUSEROPT:
            // A hint about the network, no change of any route: no lookup of its own.
            let now = MonotonicInstant(sinceBoot: .nanoseconds(SystemClock.monotonicNanoseconds))
            if let option = RouterOptionDecoder.decode(header, receivedAt: now) {
                pending.append(.routerOption(option))
            }
        default:
            if let event = decode(header), neighbourWatch.concerns(event) {
                pending.append(event)
                pending += observed(event)
                // Link and address changes re-run the lookups too: an admin-down link
                // loses its IPv4 routes without any RTM_DELROUTE (docs/KERNEL.md, "Toolchain and kernel facts").
                staleFamilies.formUnion(Self.families(of: event))
            }
        }
    }

    /// The family of a route message (`rtm_family`); both when it says neither.
    private static func families(ofRoute header: UnsafeMutablePointer<nlmsghdr>) -> Set<AddressFamily> {
        guard header.hasPayload(of: rtmsg.self) else { return Set(AddressFamily.allCases) }
        let family = header.payload(as: rtmsg.self).rtm_family
        let named = AddressFamily.allCases.filter { $0.linuxValue == family }
        return Set(named.isEmpty ? AddressFamily.allCases : named)
    }

    /// The families whose answers a decoded event can change: an address's or a rule's
    /// own, both for a link, none for a neighbour or a router's option (they change no
    /// route) or a carrier change (it comes with its link's message).
    private static func families(of event: NetworkEvent) -> Set<AddressFamily> {
        switch event {
        case .addressChanged(let address): [address.family]
        case .addressRemoved(let key): [key.address.family]
        case .ruleAdded(let rule), .ruleRemoved(let rule): [rule.family]
        case .linkChanged, .linkRemoved, .routeLookup, .interfaceLookup: Set(AddressFamily.allCases)
        case .neighbourChanged, .neighbourRemoved, .carrierLost, .carrierRegained, .routerOption: []
        }
    }

    /// A link, address, rule or neighbour message as a `NetworkEvent`; nil for anything else.
    func decode(_ header: UnsafeMutablePointer<nlmsghdr>) -> NetworkEvent? {
        switch Int(header.pointee.nlmsg_type) {
        case RTM_NEWLINK, RTM_DELLINK:
            switch LinkDecoder.decode(header) {
            case .changed(let link):
                return .linkChanged(Link(index: link.index, name: link.name, flags: link.flags,
                                         operState: link.operState, hardwareType: link.hardwareType,
                                         kind: link.kind, type: classifier.classify(link), master: link.master,
                                         carrierDownCount: link.carrierDownCount, driver: classifier.driver(of: link)))
            case .removed(let index):
                classifier.forget(index)
                return .linkRemoved(index)
            case nil:
                return nil
            }
        case RTM_NEWADDR, RTM_DELADDR:
            switch AddressDecoder.decode(header) {
            case .changed(let address): return .addressChanged(address)
            case .removed(let key): return .addressRemoved(key)
            case nil: return nil
            }
        case RTM_NEWRULE, RTM_DELRULE:
            switch RuleDecoder.decode(header) {
            case .added(let rule): return .ruleAdded(rule)
            case .removed(let rule): return .ruleRemoved(rule)
            case nil: return nil
            }
        case Int(RTM_NEWNEIGH), Int(RTM_DELNEIGH):
            switch NeighbourDecoder.decode(header, readAt: Self.now()) {
            case .changed(let neighbour): return .neighbourChanged(neighbour)
            case .removed(let key): return .neighbourRemoved(key)
            case nil: return nil
            }
        default:
            return nil
        }
    }

    /// What the drain collected, with fresh lookups, as the batch to deliver; nil if
    /// nothing relevant arrived (or a lookup failed: the monitor then failed). Every drain
    /// that ends with the socket empty costs the lookups: the route filter keeps the
    /// messages that cannot change an answer in the kernel, so a flood no longer reaches
    /// here message by message.
    private func flush() -> EventBatch? {
        guard !staleFamilies.isEmpty || !pending.isEmpty else { return nil }
        do {
            return try takeBatch(isFullState: false)
        } catch {
            fail(.failure(error.description))
            return nil
        }
    }

    /// `pending` followed by fresh lookups as one batch, to deliver; the next one starts
    /// empty. When a lookup fails, it throws and `pending` is kept.
    /// Only the stale links are asked (`staleInterfaces`: every link for the full state,
    /// a generation's first batch); the evaluator's snapshot keeps the others' answers.
    /// The batch holds the default path's lookups only: the watched routes are asked
    /// after it, by whoever watches them (`lookUpRoutes`), so the path's line never waits
    /// for them (docs/ARCHITECTURE.md, "Watched routes").
    func takeBatch(isFullState: Bool) throws(NetlinkError) -> EventBatch {
        if isFullState { staleFamilies = Set(AddressFamily.allCases) }
        for event in pending {
            switch event {
            case .linkChanged(let link):
                if link.hasOwnLookups {
                    lookupInterfaces.insert(link.index)
                } else {
                    lookupInterfaces.remove(link.index)
                }
                if let master = link.master { masters.insert(master) }
                if masters.contains(link.index) { staleInterfaces = .all } else { staleInterfaces.insert(link.index) }
            case .linkRemoved(let index):
                lookupInterfaces.remove(index)
                linkStaleAt[index] = nil
                if masters.contains(index) { staleInterfaces = .all }
            case .addressChanged, .addressRemoved, .ruleAdded, .ruleRemoved:
                staleInterfaces = .all
            case .routeLookup, .interfaceLookup, .neighbourChanged, .neighbourRemoved, .carrierLost, .carrierRegained,
                 .routerOption:
                // A neighbour or a router's option changes no route, and a carrier change
                // comes with its link's message.
                break
            }
        }
        pending += try lookups()
        pending += try gatewayEvents(after: pending)
        let events = pending
        pending = []
        staleFamilies = []
        // The clock of the watched destinations' kept answers: this batch's stale links
        // are stale for every answer asked before it (only links asked through count).
        deliveredBatches += 1
        switch staleInterfaces {
        case .all: everyLinkStaleAt = deliveredBatches
        case .some(let links):
            for link in links where lookupInterfaces.contains(link) { linkStaleAt[link] = deliveredBatches }
        }
        staleInterfaces = .none
        return EventBatch(generation: generation, isFullState: isFullState, events: events, readAt: Self.now())
    }

    /// Per stale family (`staleFamilies`), IPv4 first: the `.routeLookup` of the route
    /// traffic would take, then an `.interfaceLookup` through each of `lookupInterfaces`
    /// that is stale (`staleInterfaces`), all asked in one batch.
    func lookups() throws(NetlinkError) -> [NetworkEvent] {
        let families = AddressFamily.allCases.filter { staleFamilies.contains($0) }
        let stale = staleInterfaces.filter(lookupInterfaces.sorted())
        let answers = try lookUp(families.map { (configuration.lookupDestinations[$0], stale) })
        var events: [NetworkEvent] = []
        for (family, answer) in zip(families, answers) {
            events.append(.routeLookup(family, answer.route))
            for (index, lookup) in answer.throughInterface.sorted(by: { $0.key < $1.key }) {
                events.append(.interfaceLookup(family, index, lookup))
            }
        }
        return events
    }

    /// For each destination, the route to it and the route through each of its
    /// interfaces, all asked in one batch (`RouteLookupRequest.perform`: one sendmsg(2)
    /// while they fit in one).
    private func lookUp(_ questions: [(destination: IPAddress, interfaces: [InterfaceIndex])])
        throws(NetlinkError) -> [DestinationLookup] {
        guard let socket = requestSocket else {
            throw NetlinkError(operation: "route lookup", code: .protocolViolation("request socket is closed"))
        }
        let requests = questions.flatMap { question in
            [RouteLookupRequest(destination: question.destination)] + question.interfaces.map {
                RouteLookupRequest(destination: question.destination, outputInterface: $0, matchesWholeEntry: true)
            }
        }
        let answers = try RouteLookupRequest.perform(requests, on: socket, buffer: buffer)
        var position = answers.startIndex
        return questions.map { question in
            let throughInterface = Dictionary(uniqueKeysWithValues: zip(question.interfaces,
                                                                        answers[(position + 1)...]))
            defer { position += 1 + question.interfaces.count }
            return DestinationLookup(route: answers[position], throughInterface: throughInterface)
        }
    }

    /// Dumps one object type (NLM_F_DUMP, family AF_UNSPEC: all families) on the
    /// request socket and decodes it, until NLMSG_DONE.
    func dump<Header: BitwiseCopyable>(type: Int, header: Header,
                                       _ operation: String) throws(NetlinkError) -> [NetworkEvent] {
        guard let socket = requestSocket else {
            throw NetlinkError(operation: operation, code: .protocolViolation("request socket is closed"))
        }
        let message = try NetlinkMessage(type: Int32(type), flags: Int32(NLM_F_REQUEST | NLM_F_DUMP))
        try message.append(header)
        var events: [NetworkEvent] = []
        try socket.exchange(message, buffer: buffer, operation) { reply throws(NetlinkError) in
            switch reply {
            case .message(let header):
                if let event = decode(header) { events += [event] + observed(event) }
                return true
            case .error(let code):
                throw NetlinkError(operation: operation, code: .errno(code))
            }
        }
        return events
    }
}

// MARK: - Chosen destinations (the `route` request, watched routes)

extension NetlinkMonitor {
    /// The answers through each link kept for a watched destination, and when they were
    /// asked (`deliveredBatches` then).
    struct KeptAnswers {
        var throughInterface: [InterfaceIndex: RouteLookup]
        var askedAt: Int
    }

    /// Route lookups asked in one turn of `queue`, in one sendmsg(2): a round of many
    /// watched routes is split into turns of this many, so that the reading of events
    /// and the default path's lookups queued meanwhile wait for one turn (a tenth of a
    /// millisecond or so), not for the whole round (thousands of lookups from many
    /// users' subscriptions). A quarter of a full request batch
    /// (`RouteLookupRequest.batchSize`): the kernel answers a sendmsg's lookups in one
    /// go, in pathd's thread, and with turns of 64 everyone's lines came later while one
    /// user's routes were asked (docs/PERFORMANCE.md, "One user at the route limit").
    static let lookupsPerTurn = 16

    /// Asks the kernel for the route to each question on the request socket, on
    /// `queue`: behind a dump or a batch's lookups already queued (each bounded, the
    /// socket's receive timeout is 5 s), never on the caller's queue; `lookupsPerTurn`
    /// lookups at a time. A question without an interface is asked with the route
    /// through each interface too (one batch), or for a watched destination through
    /// the interfaces a change could have reached since it was last asked (the others'
    /// answers are kept, `linksToAsk`); a zone's answer through it is the whole answer.
    /// `reply` gets every answer, in order, after the last turn.
    public func lookUpRoutes(_ questions: [RouteQuestion],
                             reply: @escaping @Sendable ([Result<DestinationLookup, RouteLookupError>]) -> Void) {
        queue.async { [self] in lookUpRoutes(questions[...], answered: [], reply: reply) }
    }

    private func lookUpRoutes(_ questions: ArraySlice<RouteQuestion>,
                              answered: [Result<DestinationLookup, RouteLookupError>],
                              reply: @escaping @Sendable ([Result<DestinationLookup, RouteLookupError>]) -> Void) {
        let links = lookupInterfaces.sorted()
        // This turn's questions: as many as fit in `lookupsPerTurn` lookups, one at least.
        var turn: [(question: RouteQuestion, links: [InterfaceIndex])] = []
        var lookups = 0
        for question in questions {
            let through = question.interface == nil ? linksToAsk(question.destination, among: links) : []
            guard turn.isEmpty || lookups + 1 + through.count <= Self.lookupsPerTurn else { break }
            turn.append((question, through))
            lookups += 1 + through.count
        }
        let answers = answered + answer(turn, links: links)
        let rest = questions.dropFirst(turn.count)
        guard !rest.isEmpty else {
            reply(answers)
            return
        }
        queue.async { [self, answers] in lookUpRoutes(rest, answered: answers, reply: reply) }
    }

    /// Of `links`, those to ask `destination` through: all of them, unless its answers
    /// are kept (a watched destination asked before), then those a delivered batch made
    /// stale since, and those it has no answer for. A change that a batch has not
    /// delivered yet makes the answer stale at that batch: asked again, never missed.
    func linksToAsk(_ destination: IPAddress, among links: [InterfaceIndex]) -> [InterfaceIndex] {
        guard let kept = watchedAnswers[destination] else { return links }
        return links.filter { link in
            kept.throughInterface[link] == nil || max(linkStaleAt[link] ?? 0, everyLinkStaleAt) > kept.askedAt
        }
    }

    /// One turn's questions, asked in two request batches (`RouteLookupRequest.perform`):
    /// the zones' lookups through their interface, whose answer is the whole answer, and
    /// the others' with the route through each of their links to ask, merged with the
    /// kept answers (a watched destination's kept again). A failure of the socket is
    /// every question's answer; the next batch's own lookups meet the same socket and
    /// replace the monitor if it is broken.
    private func answer(_ turn: [(question: RouteQuestion, links: [InterfaceIndex])],
                        links: [InterfaceIndex]) -> [Result<DestinationLookup, RouteLookupError>] {
        guard let socket = requestSocket else {
            let closed = RouteLookupError("the network monitor of generation \(generation) is closed")
            return turn.map { _ in .failure(closed) }
        }
        let zones = turn.compactMap { asked in
            asked.question.interface.map { RouteLookupRequest(destination: asked.question.destination,
                                                              outputInterface: $0) }
        }
        let others = turn.filter { $0.question.interface == nil }.map { ($0.question.destination, $0.links) }
        do throws(NetlinkError) {
            var zoneAnswers = try RouteLookupRequest.perform(zones, on: socket, buffer: buffer)[...]
            var otherAnswers = try lookUp(others)[...]
            let current = Set(links)
            return turn.map { asked in
                guard asked.question.interface == nil else {
                    return zoneAnswers.popFirst().map { .success(DestinationLookup(route: $0)) }
                        ?? .failure(RouteLookupError("a lookup had no answer"))
                }
                guard let fresh = otherAnswers.popFirst() else {
                    return .failure(RouteLookupError("a lookup had no answer"))
                }
                let destination = asked.question.destination
                var throughInterface = watchedAnswers[destination]?.throughInterface ?? [:]
                throughInterface = throughInterface.filter { current.contains($0.key) }
                throughInterface.merge(fresh.throughInterface) { $1 }
                if watchedDestinations.contains(destination) {
                    watchedAnswers[destination] = KeptAnswers(throughInterface: throughInterface,
                                                              askedAt: deliveredBatches)
                }
                return .success(DestinationLookup(route: fresh.route, throughInterface: throughInterface))
            }
        } catch {
            return turn.map { _ in .failure(RouteLookupError(error.description)) }
        }
    }

    /// Lets the route messages covering `destinations` through the kernel-side filter
    /// from now on (`RouteFilter`): the program is generated again and attached in place
    /// of the old one, on `queue`, so lookups queued after this call see its effect. The
    /// answers kept for destinations no longer watched are dropped.
    public func passRoutes(covering destinations: Set<IPAddress>) {
        queue.async { [self] in
            guard destinations != watchedDestinations else { return }
            watchedDestinations = destinations
            watchedAnswers = watchedAnswers.filter { destinations.contains($0.key) }
            // Before the sockets open, `openSockets` attaches the program with these.
            guard let eventSocket else { return }
            attachRouteFilter(to: eventSocket)
        }
    }
}
