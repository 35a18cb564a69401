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

/// What one subscription asked for: the criteria, and the id its lines carry.
struct SubscriptionTerms: Hashable, Sendable {
    var id: JSONValue?
    var criteria: Criteria
    /// `id` as its path lines carry it (`EncodedPathLine.idMember`), encoded once.
    var idMember: [UInt8]
}

/// The one owner of "who is subscribed to what": (client, subscription) ⇄ criteria,
/// with the indexes every request needs in O(1): the subscriptions of a criteria (to
/// publish), of a client (to count and to drop on disconnect), and of a client's id (to
/// unsubscribe). A value type; the service keeps one and nothing else stores the
/// relation.
struct SubscriptionRegistry {
    private var subscriptions: [SubscriptionKey: SubscriptionTerms] = [:]
    private var byCriteria: [Criteria: Set<SubscriptionKey>] = [:]
    private var byClient: [ClientID: ClientSubscriptions] = [:]

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

    /// The criteria anyone is subscribed to.
    var subscribedCriteria: Dictionary<Criteria, Set<SubscriptionKey>>.Keys { byCriteria.keys }

    subscript(key: SubscriptionKey) -> SubscriptionTerms? { subscriptions[key] }

    /// The subscriptions to `criteria`.
    func subscribers(of criteria: Criteria) -> Set<SubscriptionKey> { byCriteria[criteria] ?? [] }

    /// Adds a subscription and returns its key.
    ///
    /// The client's entry is changed in place (through the dictionary's accessor): a
    /// copy taken out and written back would share its `numbersByID` storage with the
    /// dictionary, and the first change would copy all of it, O(subscriptions) a request.
    mutating func add(client: ClientID, id: JSONValue?, criteria: Criteria) -> SubscriptionKey {
        let key = byClient[client, default: ClientSubscriptions()].add(id: id, client: client)
        subscriptions[key] = SubscriptionTerms(id: id, criteria: criteria, idMember: EncodedPathLine.idMember(id))
        byCriteria[criteria, default: []].insert(key)
        return key
    }

    /// Ends every subscription of `client` with `id`; returns the keys ended (none when
    /// the client holds no subscription with that id). In place, as `add`.
    mutating func remove(client: ClientID, id: JSONValue?) -> [SubscriptionKey] {
        guard let numbers = byClient[client]?.remove(id: id) else { return [] }
        let keys = numbers.map { SubscriptionKey(client: client, number: $0) }
        for key in keys { forget(key) }
        return keys
    }

    /// Ends every subscription of `client` (it disconnected).
    mutating func removeAll(of client: ClientID) {
        guard let entry = byClient.removeValue(forKey: client) else { return }
        for numbers in entry.numbersByID.values {
            for number in numbers { forget(SubscriptionKey(client: client, number: number)) }
        }
    }

    private mutating func forget(_ key: SubscriptionKey) {
        guard let subscription = subscriptions.removeValue(forKey: key) else { return }
        byCriteria[subscription.criteria]?.remove(key)
        if byCriteria[subscription.criteria]?.isEmpty == true { byCriteria[subscription.criteria] = nil }
    }
}
