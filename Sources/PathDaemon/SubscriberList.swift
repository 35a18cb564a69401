// SPDX-License-Identifier: Apache-2.0

/// The subscriptions of one topic in the order they were made, so that a change's lines
/// go out oldest subscription first: a `Set`'s order follows the hash seed, new in every
/// process, which put the first subscriber of a crowd of 1,000 behind hundreds of other
/// sends, a different number each run (docs/PERFORMANCE.md, "The first subscriber with
/// 1,000 beside it"). Insert, remove and membership are O(1) (removal leaves a hole,
/// closed once holes are half the slots); iteration skips the holes.
struct SubscriberList: Sequence {
    private var slots: [SubscriptionKey?] = []
    private var positions: [SubscriptionKey: Int] = [:]

    var isEmpty: Bool { positions.isEmpty }
    var count: Int { positions.count }

    func contains(_ key: SubscriptionKey) -> Bool { positions[key] != nil }

    /// Adds `key` last; nothing when it is there already.
    mutating func insert(_ key: SubscriptionKey) {
        guard positions[key] == nil else { return }
        positions[key] = slots.count
        slots.append(key)
    }

    mutating func remove(_ key: SubscriptionKey) {
        guard let position = positions.removeValue(forKey: key) else { return }
        slots[position] = nil
        if slots.count >= 16 && positions.count * 2 < slots.count { compact() }
    }

    private mutating func compact() {
        slots.removeAll { $0 == nil }
        for (position, slot) in slots.enumerated() {
            if let slot { positions[slot] = position }
        }
    }

    func makeIterator() -> some IteratorProtocol<SubscriptionKey> {
        slots.lazy.compactMap { $0 }.makeIterator()
    }
}
