// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel

/// Chosen destinations (the `route` request, watched routes): asked on `queue` when
/// someone asks, apart from the batches' own lookups, and the route filter told which
/// destinations' route messages to pass.
extension NetlinkMonitor {
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
    /// through each interface too (one batch), or, with its `known` answers, through the
    /// interfaces a change could have reached since they were asked (the others' are
    /// kept, `LookupStaleness.linksToAsk`); a zone's answer through it is the whole
    /// answer. `reply` gets every answer, stamped with when it was asked, in order,
    /// after the last turn.
    public func lookUpRoutes(_ questions: [RouteQuestion],
                             reply: @escaping @Sendable ([Result<AskedLookup, RouteLookupError>]) -> Void) {
        queue.async { [self] in lookUpRoutes(questions[...], answered: [], reply: reply) }
    }

    private func lookUpRoutes(_ questions: ArraySlice<RouteQuestion>,
                              answered: [Result<AskedLookup, RouteLookupError>],
                              reply: @escaping @Sendable ([Result<AskedLookup, RouteLookupError>]) -> Void) {
        let links = staleness.lookupInterfaces.sorted()
        // This turn's questions: as many as fit in `lookupsPerTurn` lookups, one at least.
        var turn: [(question: RouteQuestion, links: [InterfaceIndex])] = []
        var lookups = 0
        for question in questions {
            let through = question.interface == nil
                ? staleness.linksToAsk(known: question.known, among: links) : []
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

    /// One turn's questions, asked in two request batches (`RouteLookupRequest.perform`):
    /// the zones' lookups through their interface, whose answer is the whole answer, and
    /// the others' with the route through each of their links to ask, merged with the
    /// known answers still good (`LookupStaleness.kept`). A failure of the socket is
    /// every question's answer; the next batch's own lookups meet the same socket and
    /// replace the monitor if it is broken.
    private func answer(_ turn: [(question: RouteQuestion, links: [InterfaceIndex])],
                        links: [InterfaceIndex]) -> [Result<AskedLookup, RouteLookupError>] {
        guard let socket = requestSocket else {
            let closed = RouteLookupError("the network monitor of generation \(generation) is closed")
            return turn.map { _ in .failure(closed) }
        }
        let zones = turn.compactMap { asked in
            asked.question.interface.map { RouteLookupRequest(destination: asked.question.destination,
                                                              outputInterface: $0) }
        }
        let others = turn.filter { $0.question.interface == nil }.map {
            LookupQuestion(destination: $0.question.destination, interfaces: $0.links)
        }
        do throws(NetlinkError) {
            var zoneAnswers = try RouteLookupRequest.perform(zones, on: socket, buffer: buffer)[...]
            var otherAnswers = try zip(others, lookUp(others)).map { $1.destinationLookup(for: $0) }[...]
            let current = Set(links)
            let now = staleness.now
            return turn.map { asked in
                guard asked.question.interface == nil else {
                    return zoneAnswers.popFirst().map {
                        .success(AskedLookup(DestinationLookup(route: $0), askedAt: now))
                    } ?? .failure(RouteLookupError("a lookup had no answer"))
                }
                guard let fresh = otherAnswers.popFirst() else {
                    return .failure(RouteLookupError("a lookup had no answer"))
                }
                var throughInterface = staleness.kept(asked.question.known, among: current)
                throughInterface.merge(fresh.throughInterface) { $1 }
                return .success(AskedLookup(DestinationLookup(route: fresh.route, throughInterface: throughInterface),
                                            askedAt: now))
            }
        } catch {
            return turn.map { _ in .failure(RouteLookupError(error.description)) }
        }
    }

    /// Lets the route messages covering `destinations` through the kernel-side filter
    /// from now on (`RouteFilter`): the program is generated again and attached in place
    /// of the old one, on `queue`, so lookups queued after this call see its effect.
    public func passRoutes(covering destinations: Set<IPAddress>) {
        queue.async { [self] in
            guard destinations != watchedDestinations else { return }
            watchedDestinations = destinations
            // Before the sockets open, `openSockets` attaches the program with these.
            guard let eventSocket else { return }
            attachRouteFilter(to: eventSocket)
        }
    }
}
