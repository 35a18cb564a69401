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
        let (next, batch) = queue.syncReturning { readable() }
        guard let batch else { return next }
        deliver(batch)
        if let follow = queue.syncReturning({ followGateways() }) { deliver(follow) }
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
            // Nothing to learn from the message's links when every link is stale already.
            staleness.routeChanged(families: Self.families(ofRoute: header)) { .of(route: header) }
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
                staleness.read(event)
            }
        }
    }

    /// The family of a route message (`rtm_family`); both when it says neither.
    private static func families(ofRoute header: UnsafeMutablePointer<nlmsghdr>) -> AddressFamilies {
        guard header.hasPayload(of: rtmsg.self) else { return .all }
        return AddressFamily(linuxValue: header.payload(as: rtmsg.self).rtm_family).map(AddressFamilies.init) ?? .all
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
        guard staleness.hasStaleFamilies || !pending.isEmpty else { return nil }
        do {
            return try takeBatch(isFullState: false)
        } catch {
            fail(.failure(error.description))
            return nil
        }
    }

    /// `pending` followed by fresh lookups as one batch, to deliver; the next one starts
    /// empty. When a lookup fails, it throws and `pending` is kept.
    /// Only the stale links are asked (`LookupStaleness`: every link for the full state,
    /// a generation's first batch); the evaluator's snapshot keeps the others' answers.
    /// The batch holds the default path's lookups only: the watched routes are asked
    /// after it, by whoever watches them (`lookUpRoutes`), so the path's line never waits
    /// for them (docs/ARCHITECTURE.md, "Watched routes").
    func takeBatch(isFullState: Bool) throws(NetlinkError) -> EventBatch {
        staleness.take(pending, isFullState: isFullState)
        pending += try lookups()
        pending += try gatewayEvents(after: pending)
        let events = pending
        pending = []
        staleness.batchDelivered()
        // Only a full state's time is read (`EventBatch.readAt`): a change's line need not wait for the clock.
        return EventBatch(generation: generation, isFullState: isFullState, events: events,
                          readAt: isFullState ? Self.now() : nil)
    }

    /// Per stale family, IPv4 first: the `.routeLookup` of the route traffic would take,
    /// then an `.interfaceLookup` through each stale link that carries lookups
    /// (`LookupStaleness.lookups`), all asked in one batch.
    func lookups() throws(NetlinkError) -> [NetworkEvent] {
        let (families, stale) = staleness.lookups
        let answers = try lookUp(families.map { LookupQuestion(destination: configuration.lookupDestinations[$0],
                                                               interfaces: stale) })
        var events: [NetworkEvent] = []
        for (family, answer) in zip(families, answers) {
            events.append(.routeLookup(family, answer.route))
            // In index order, as `stale` is.
            for (index, lookup) in zip(stale, answer.throughInterfaces) {
                events.append(.interfaceLookup(family, index, lookup))
            }
        }
        return events
    }

    /// A destination to look up, and the interfaces to look it up through.
    struct LookupQuestion {
        let destination: IPAddress
        let interfaces: [InterfaceIndex]
    }

    /// The kernel's answers to a `LookupQuestion`: the route to the destination, and
    /// the route through each of its interfaces, in the question's order. A list, not
    /// the dictionary a `DestinationLookup` keeps: the batch's lookups read them in order
    /// before the change's line, and a dictionary is storage made and freed there.
    struct LookupAnswers {
        let route: RouteLookup
        let throughInterfaces: ArraySlice<RouteLookup>

        /// The answers as a `DestinationLookup` keeps them, by interface.
        func destinationLookup(for question: LookupQuestion) -> DestinationLookup {
            DestinationLookup(route: route,
                              throughInterface: Dictionary(uniqueKeysWithValues: zip(question.interfaces,
                                                                                     throughInterfaces)))
        }
    }

    /// For each destination, the route to it and the route through each of its
    /// interfaces, all asked in one batch (`RouteLookupRequest.perform`: one sendmsg(2)
    /// while they fit in one).
    func lookUp(_ questions: [LookupQuestion]) throws(NetlinkError) -> [LookupAnswers] {
        guard let socket = requestSocket else {
            throw NetlinkError(operation: "route lookup", code: .protocolViolation("request socket is closed"))
        }
        var requests: [RouteLookupRequest] = []
        for question in questions {
            requests.append(RouteLookupRequest(destination: question.destination))
            for index in question.interfaces {
                requests.append(RouteLookupRequest(destination: question.destination, outputInterface: index,
                                                   matchesWholeEntry: true))
            }
        }
        let answers = try RouteLookupRequest.perform(requests, on: socket, buffer: buffer)
        var position = answers.startIndex
        return questions.map { question in
            let end = position + 1 + question.interfaces.count
            defer { position = end }
            return LookupAnswers(route: answers[position], throughInterfaces: answers[(position + 1)..<end])
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
