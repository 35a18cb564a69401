// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import PathModel

/// Collects what a monitor delivers, for tests to wait on with a deadline.
///
/// `@unchecked Sendable`: every field is guarded by `lock`.
final class BatchInbox: @unchecked Sendable {
    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private var batches: [EventBatch] = []
    private var losses: [String] = []
    private var logged: [String] = []

    func deliver(_ batch: EventBatch) {
        lock.withLock { batches.append(batch) }
        arrived.signal()
    }

    func lost(_ generation: Generation, _ loss: SourceLoss) {
        lock.withLock { losses.append("\(generation): \(loss)") }
        arrived.signal()
    }

    func log(_ level: LogLevel, _ line: String) {
        lock.withLock { logged.append("\(level.rawValue): \(line)") }
    }

    var lostReasons: [String] { lock.withLock { losses } }

    /// What the monitor logged so far, "LEVEL: line" each.
    var logLines: [String] { lock.withLock { logged } }

    /// The next batch, or nil (recorded as a failure by the caller) after `seconds`.
    func next(within seconds: Double = 10) -> EventBatch? {
        let deadline = DispatchTime.now() + seconds
        while true {
            if let batch = lock.withLock({ batches.isEmpty ? nil : batches.removeFirst() }) { return batch }
            if lock.withLock({ !losses.isEmpty }) { return nil }
            if arrived.wait(timeout: deadline) == .timedOut { return nil }
        }
    }

    /// Batches until one satisfies `condition`; nil after `seconds` in all.
    func first(within seconds: Double = 10, where condition: (EventBatch) -> Bool) -> EventBatch? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let batch = next(within: deadline.timeIntervalSinceNow) else { return nil }
            if condition(batch) { return batch }
        }
        return nil
    }
}

extension EventBatch {
    var links: [Link] {
        events.compactMap { if case .linkChanged(let link) = $0 { link } else { nil } }
    }

    var addresses: [InterfaceAddress] {
        events.compactMap { if case .addressChanged(let address) = $0 { address } else { nil } }
    }

    /// The batch's answers through each interface, per family.
    var interfaceLookups: [AddressFamily: [InterfaceIndex: RouteLookup]] {
        var result: [AddressFamily: [InterfaceIndex: RouteLookup]] = [:]
        for case .interfaceLookup(let family, let index,
                                  let lookup) in events { result[family, default: [:]][index] = lookup }
        return result
    }

    var lookups: [AddressFamily: RouteLookup] {
        var result: [AddressFamily: RouteLookup] = [:]
        for case .routeLookup(let family, let lookup) in events { result[family] = lookup }
        return result
    }

    var lookupCount: Int {
        events.filter { if case .routeLookup = $0 { true } else { false } }.count
    }
}
