// SPDX-License-Identifier: Apache-2.0
import CLinux
import Dispatch
import PathModel
import SystemCalls

/// Reading, decoding and delivering: everything here runs on `queue`.
extension NetlinkMonitor {
    enum DrainOutcome {
        /// The socket said EAGAIN: everything queued was read.
        case caughtUp
        /// `messagesPerWakeup` messages were read and more may wait.
        case budgetExhausted
        /// Events were lost or the socket failed; why, for `lost`.
        case failed(SourceLoss)
    }

    /// The read source's event handler.
    func readable() {
        guard case .running = state else { return }
        switch drainEvents() {
        case .caughtUp:
            flush()
        case .budgetExhausted:
            if pending.count >= Self.maxPendingEvents { flush() }
            // Yield `queue` to whatever else waits on it, then go on reading. (The read
            // source would fire again too while data is queued; this does not rely on it.)
            queue.async { self.readable() }
        case .failed(let loss):
            fail(loss)
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
            needsLookup = true
            // Nothing to learn from the message when every link is stale already.
            if staleInterfaces != .all { staleInterfaces.formUnion(.of(route: header)) }
        case RTM_NEWNDUSEROPT:
            // A hint about the network, no change of any route: no lookup of its own.
            let now = MonotonicInstant(sinceBoot: .nanoseconds(SystemClock.monotonicNanoseconds))
            if let option = RouterOptionDecoder.decode(header, receivedAt: now) {
                pending.append(.routerOption(option))
            }
        default:
            if let event = decode(header) {
                pending.append(event)
                // Link and address changes re-run the lookups too: an admin-down link
                // loses its IPv4 routes without any RTM_DELROUTE (docs/ARCHITECTURE.md, "Toolchain and kernel facts").
                needsLookup = true
            }
        }
    }

    /// A link or address message as a `NetworkEvent`; nil for anything else.
    func decode(_ header: UnsafeMutablePointer<nlmsghdr>) -> NetworkEvent? {
        switch Int(header.pointee.nlmsg_type) {
        case RTM_NEWLINK, RTM_DELLINK:
            switch LinkDecoder.decode(header) {
            case .changed(let link):
                return .linkChanged(Link(index: link.index, name: link.name, flags: link.flags,
                                         operState: link.operState, hardwareType: link.hardwareType,
                                         kind: link.kind, type: classifier.classify(link), master: link.master))
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
        default:
            return nil
        }
    }

    /// Delivers what the drain collected, with fresh lookups; nothing if nothing
    /// relevant arrived. Every drain that ends with the socket empty costs the lookups:
    /// the route filter keeps the messages that cannot change an answer in the kernel,
    /// so a flood no longer reaches here message by message.
    private func flush() {
        guard needsLookup || !pending.isEmpty else { return }
        do {
            try deliverPending(isFullState: false)
        } catch {
            fail(.failure(error.description))
        }
    }

    /// Delivers `pending` followed by fresh lookups as one batch, and starts the next
    /// one empty. When a lookup fails, nothing is delivered and `pending` is kept.
    /// Only the stale links are asked (`staleInterfaces`: every link for the full state,
    /// a generation's first batch); the evaluator's snapshot keeps the others' answers.
    func deliverPending(isFullState: Bool) throws(NetlinkError) {
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
        let watched = try watchedLookups()
        let events = pending
        pending = []
        needsLookup = false
        staleInterfaces = .none
        deliver(EventBatch(generation: generation, isFullState: isFullState, events: events, watchedLookups: watched))
    }

    /// The route to each watched destination, in the batch, so that a watched route's
    /// line goes out with the path's rather than one hop later (docs/PERFORMANCE.md,
    /// "Watched routes"); none past `RouteFilter.maximumWatchedDestinations`, where the
    /// watcher's own rounds ask them a few dozen per turn instead of holding this one.
    func watchedLookups() throws(NetlinkError) -> [IPAddress: DestinationLookup] {
        guard !watchedDestinations.isEmpty, watchedDestinations.count <= RouteFilter.maximumWatchedDestinations else {
            watchedAnswers = [:]
            return [:]
        }
        // As for the lookup destinations: each destination's own route every time, the
        // route through an interface only when stale, unless a destination is new.
        let every = lookupInterfaces.sorted()
        let isNew = watchedDestinations.contains { watchedAnswers[$0] == nil }
        let destinations = Array(watchedDestinations)
        let asked = try lookUp(destinations, through: isNew ? every : staleInterfaces.filter(every))
        var answers: [IPAddress: DestinationLookup] = [:]
        for (destination, answer) in zip(destinations, asked) {
            var kept = isNew ? [:] : (watchedAnswers[destination]?.throughInterface ?? [:])
            kept = kept.filter { lookupInterfaces.contains($0.key) }
            kept.merge(answer.throughInterface) { $1 }
            answers[destination] = DestinationLookup(route: answer.route, throughInterface: kept)
        }
        watchedAnswers = answers
        return answers
    }

    /// Per configured family, IPv4 first: the `.routeLookup` of the route traffic would
    /// take, then an `.interfaceLookup` through each of `lookupInterfaces` that is
    /// stale (`staleInterfaces`), both families asked in one batch.
    func lookups() throws(NetlinkError) -> [NetworkEvent] {
        let families = AddressFamily.allCases
        let answers = try lookUp(families.map { configuration.lookupDestinations[$0] },
                                 through: staleInterfaces.filter(lookupInterfaces.sorted()))
        var events: [NetworkEvent] = []
        for (family, answer) in zip(families, answers) {
            events.append(.routeLookup(family, answer.route))
            for (index, lookup) in answer.throughInterface.sorted(by: { $0.key < $1.key }) {
                events.append(.interfaceLookup(family, index, lookup))
            }
        }
        return events
    }

    /// For each destination, the route to it and the route through each of
    /// `interfaces`, all asked in one batch (`RouteLookupRequest.perform`: one
    /// sendmsg(2) while they fit in one).
    private func lookUp(_ destinations: [IPAddress],
                        through interfaces: [InterfaceIndex]) throws(NetlinkError) -> [DestinationLookup] {
        guard let socket = requestSocket else {
            throw NetlinkError(operation: "route lookup", code: .protocolViolation("request socket is closed"))
        }
        let requests = destinations.flatMap { destination in
            [RouteLookupRequest(destination: destination)] + interfaces.map {
                RouteLookupRequest(destination: destination, outputInterface: $0, matchesWholeEntry: true)
            }
        }
        let answers = try RouteLookupRequest.perform(requests, on: socket, buffer: buffer)
        let perDestination = interfaces.count + 1
        return destinations.indices.map { position in
            let own = answers.dropFirst(position * perDestination).prefix(perDestination)
            let throughInterface = Dictionary(uniqueKeysWithValues: zip(interfaces, own.dropFirst()))
            return DestinationLookup(route: own[own.startIndex], throughInterface: throughInterface)
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
                if let event = decode(header) { events.append(event) }
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
    /// Route lookups asked in one turn of `queue`: a round of many watched routes is
    /// split into turns of this many, so that the reading of events and the lookups of
    /// the default path queued meanwhile wait for one turn (a few milliseconds), not for
    /// the whole round (thousands of routes from one hostile user's subscriptions).
    static let lookupsPerTurn = 64

    /// Asks the kernel for the route to each question on the request socket, on
    /// `queue`: behind a dump or a batch's lookups already queued (each bounded, the
    /// socket's receive timeout is 5 s), never on the caller's queue; `lookupsPerTurn`
    /// at a time. A question without an interface is asked with the route through each
    /// interface too (`lookUp`, one batch); a zone's answer through it is the whole
    /// answer. `reply` gets every answer, in order, after the last turn.
    public func lookUpRoutes(_ questions: [RouteQuestion],
                             reply: @escaping @Sendable ([Result<DestinationLookup, RouteLookupError>]) -> Void) {
        queue.async { [self] in lookUpRoutes(questions[...], answered: [], reply: reply) }
    }

    private func lookUpRoutes(_ questions: ArraySlice<RouteQuestion>,
                              answered: [Result<DestinationLookup, RouteLookupError>],
                              reply: @escaping @Sendable ([Result<DestinationLookup, RouteLookupError>]) -> Void) {
        let answers = answered + answer(questions.prefix(Self.lookupsPerTurn))
        let rest = questions.dropFirst(Self.lookupsPerTurn)
        guard !rest.isEmpty else {
            reply(answers)
            return
        }
        queue.async { [self, answers] in lookUpRoutes(rest, answered: answers, reply: reply) }
    }

    /// One turn's questions, asked in two request batches (`RouteLookupRequest.perform`):
    /// the zones' lookups through their interface, whose answer is the whole answer, and
    /// the others' with the route through each interface (`lookUp`). A failure of the
    /// socket is every question's answer; the next batch's own lookups meet the same
    /// socket and replace the monitor if it is broken.
    private func answer(_ questions: ArraySlice<RouteQuestion>) -> [Result<DestinationLookup, RouteLookupError>] {
        guard let socket = requestSocket else {
            let closed = RouteLookupError("the network monitor of generation \(generation) is closed")
            return questions.map { _ in .failure(closed) }
        }
        let zones = questions.compactMap { question in
            question.interface.map { RouteLookupRequest(destination: question.destination, outputInterface: $0) }
        }
        let others = questions.filter { $0.interface == nil }.map(\.destination)
        do throws(NetlinkError) {
            var zoneAnswers = try RouteLookupRequest.perform(zones, on: socket, buffer: buffer)[...]
            var otherAnswers = try lookUp(others, through: lookupInterfaces.sorted())[...]
            return questions.map { question in
                let answer = question.interface == nil
                    ? otherAnswers.popFirst() : zoneAnswers.popFirst().map { DestinationLookup(route: $0) }
                return answer.map { .success($0) } ?? .failure(RouteLookupError("a lookup had no answer"))
            }
        } catch {
            return questions.map { _ in .failure(RouteLookupError(error.description)) }
        }
    }

    /// Lets the route messages covering `destinations` through the kernel-side filter
    /// from now on (`RouteFilter`): the program is generated again and attached in place
    /// of the old one, on `queue`, so lookups queued after this call see its effect.
    public func watchRoutes(to destinations: Set<IPAddress>) {
        queue.async { [self] in
            guard destinations != watchedDestinations else { return }
            watchedDestinations = destinations
            // Before the sockets open, `openSockets` attaches the program with these.
            guard let eventSocket else { return }
            attachRouteFilter(to: eventSocket)
        }
    }
}
