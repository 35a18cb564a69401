// SPDX-License-Identifier: Apache-2.0
import KernelState
import PathModel
import PathProtocol

/// Names one connection for as long as the daemon runs (never reused).
struct ClientID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64
    var description: String { String(rawValue) }
}

/// One subscription: a connection and a number that connection's subscriptions never share.
struct SubscriptionKey: Hashable, Sendable {
    var client: ClientID
    var number: Int
}

/// What a subscription follows: the path under criteria, or the route to one destination.
enum SubscriptionTopic: Hashable, Sendable {
    case path(Criteria)
    case route(WatchedRoute)
}

/// What one subscription asked for: its topic, and the id its lines carry.
struct SubscriptionTerms: Hashable, Sendable {
    var id: JSONValue?
    var topic: SubscriptionTopic
    /// The user whose `MaxRoutesPerUser=` budget it counts against; nil when it counts
    /// against none (a path, or a route of root or pathd's own user).
    var countedUser: UInt32?
    /// `id` as its path lines carry it (`EncodedPathLine.idMember`), encoded once.
    var idMember: [UInt8]
}

/// The one owner of "who is subscribed to what": (client, subscription) ⇄ topic (a
/// criteria or a watched route), with the indexes every request needs in O(1): the
/// subscriptions of a topic (to publish), of a client (to count and to drop on disconnect), and of a client's id (to
/// unsubscribe). A value type; the service keeps one and nothing else stores the
/// relation.
struct SubscriptionRegistry {
    private var subscriptions: [SubscriptionKey: SubscriptionTerms] = [:]
    private var byTopic: [SubscriptionTopic: SubscriberList] = [:]
    private var byClient: [ClientID: ClientSubscriptions] = [:]
    /// Route subscriptions per user they count against (`SubscriptionTerms.countedUser`).
    private var routesByUser: [UInt32: Int] = [:]
    /// Route subscriptions admitted per user whose first answer is still out
    /// (`reserveRoute`): they count against the budget from their request on.
    private var reservedRoutesByUser: [UInt32: Int] = [:]

    private struct ClientSubscriptions {
        var nextNumber = 0
        /// Subscription numbers by id (several subscriptions may share one id).
        var numbersByID: [JSONValue?: [Int]] = [:]
        var count = 0

        mutating func add(id: JSONValue?, client: ClientID) -> SubscriptionKey {
            let key = SubscriptionKey(client: client, number: nextNumber)
            nextNumber += 1
            count += 1
            numbersByID[id, default: []].append(key.number)
            return key
        }

        /// The numbers of the subscriptions with `id`, now ended; nil when there were none.
        mutating func remove(id: JSONValue?) -> [Int]? {
            guard let numbers = numbersByID.removeValue(forKey: id) else { return nil }
            count -= numbers.count
            return numbers
        }
    }

    /// Every subscription, for tests and metrics.
    var count: Int { subscriptions.count }

    /// How many subscriptions `client` holds.
    func count(of client: ClientID) -> Int { byClient[client]?.count ?? 0 }

    /// How many route subscriptions count against `user`'s budget, over all its
    /// connections: those registered and those reserved, whose first answer is still out.
    func routes(countedAgainst user: UInt32) -> Int {
        (routesByUser[user] ?? 0) + (reservedRoutesByUser[user] ?? 0)
    }

    /// Takes one route subscription of `user`'s budget for a request just admitted, before
    /// its first answer (a deferred kernel lookup) registers it: each connection may have
    /// one such request out, so counting registered ones only let a user exceed
    /// `MaxRoutesPerUser=` by one per connection. `add` with `countedUser` turns the
    /// reservation into the subscription; `releaseReservedRoute` gives it back when none
    /// is made (the lookup failed, the connection closed meanwhile).
    mutating func reserveRoute(for user: UInt32) {
        reservedRoutesByUser[user, default: 0] += 1
    }

    /// Gives back a reservation of `user`'s that made no subscription.
    mutating func releaseReservedRoute(of user: UInt32) {
        Self.decrement(&reservedRoutesByUser, user)
    }

    /// The topics anyone is subscribed to.
    var subscribedTopics: Dictionary<SubscriptionTopic, SubscriberList>.Keys { byTopic.keys }

    subscript(key: SubscriptionKey) -> SubscriptionTerms? { subscriptions[key] }

    /// The subscriptions to `topic`, oldest first: the order their lines go out in.
    func subscribers(of topic: SubscriptionTopic) -> SubscriberList { byTopic[topic] ?? SubscriberList() }

    /// Adds a subscription and returns its key. A route counted against `countedUser`
    /// takes that user's reservation (`reserveRoute`), which must exist.
    ///
    /// The client's entry is changed in place (through the dictionary's accessor): a
    /// copy taken out and written back would share its `numbersByID` storage with the
    /// dictionary, and the first change would copy all of it, O(subscriptions) a request.
    @discardableResult
    mutating func add(client: ClientID, id: JSONValue?, topic: SubscriptionTopic,
                      countedUser: UInt32? = nil) -> (key: SubscriptionKey, terms: SubscriptionTerms) {
        let key = byClient[client, default: ClientSubscriptions()].add(id: id, client: client)
        let terms = SubscriptionTerms(id: id, topic: topic, countedUser: countedUser,
                                      idMember: EncodedPathLine.idMember(id))
        subscriptions[key] = terms
        byTopic[topic, default: SubscriberList()].insert(key)
        if let countedUser {
            precondition(reservedRoutesByUser[countedUser] != nil, "a counted route is reserved when admitted")
            Self.decrement(&reservedRoutesByUser, countedUser)
            routesByUser[countedUser, default: 0] += 1
        }
        return (key, terms)
    }

    /// What a removal ended: the subscriptions, and the topics nobody follows any more.
    struct Removal {
        var keys: [SubscriptionKey] = []
        var abandonedTopics: [SubscriptionTopic] = []
    }

    /// Ends every subscription of `client` with `id` (none when the client holds no
    /// subscription with that id). In place, as `add`.
    mutating func remove(client: ClientID, id: JSONValue?) -> Removal {
        guard let numbers = byClient[client]?.remove(id: id) else { return Removal() }
        var removal = Removal()
        for number in numbers { forget(SubscriptionKey(client: client, number: number), into: &removal) }
        return removal
    }

    /// Ends every subscription of `client` (it disconnected).
    mutating func removeAll(of client: ClientID) -> Removal {
        var removal = Removal()
        guard let entry = byClient.removeValue(forKey: client) else { return removal }
        for numbers in entry.numbersByID.values {
            for number in numbers { forget(SubscriptionKey(client: client, number: number), into: &removal) }
        }
        return removal
    }

    private mutating func forget(_ key: SubscriptionKey, into removal: inout Removal) {
        guard let subscription = subscriptions.removeValue(forKey: key) else { return }
        removal.keys.append(key)
        if let user = subscription.countedUser { Self.decrement(&routesByUser, user) }
        byTopic[subscription.topic]?.remove(key)
        if byTopic[subscription.topic]?.isEmpty == true {
            byTopic[subscription.topic] = nil
            removal.abandonedTopics.append(subscription.topic)
        }
    }

    /// One fewer for `user`, its entry removed at zero (so the maps hold active users only).
    private static func decrement(_ counts: inout [UInt32: Int], _ user: UInt32) {
        guard let count = counts[user] else { return }
        counts[user] = count > 1 ? count - 1 : nil
    }
}
