// SPDX-License-Identifier: Apache-2.0
import SystemCalls

/// The lines waiting for one client to read them.
///
/// Two kinds of line, bounded differently:
/// - **Replies** (to the client's own requests) are never dropped and never count
///   against the client: the connection stops reading requests while replies wait
///   (`ClientConnection`), so they are bounded by that pause plus one reply, however
///   large that one is.
/// - **Pushes** (path lines of subscriptions, resync lines) are what the daemon sends
///   unasked. A path line supersedes an older unsent path line of the same subscription
///   (the client wants the newest path, not the history); a resync is never dropped.
///   `pushedBytes` past the client's limit means it is not reading: the caller
///   disconnects it, so memory per client stays bounded.
struct OutgoingQueue {
    enum Kind: Equatable {
        /// A reply to a request.
        case reply
        /// A path line of the subscription with this number; supersedable.
        case path(subscription: Int)
        /// Any other line sent unasked (resync, shuttingDown).
        case push
    }

    private struct Item {
        var kind: Kind
        /// Emptied when superseded before it was written: skipped, and counted nowhere.
        var bytes: [UInt8]
    }

    private var items: [Item] = []
    private var head = 0
    /// How many items were removed from the front of `items` in total, so that an
    /// absolute position (`removed + index`) stays valid across compaction.
    private var removed = 0
    /// How much of the item at `head` was already written.
    private var written = 0
    /// Absolute position of the unsent path line of each subscription.
    private var latestPathLine: [Int: Int] = [:]

    /// Bytes queued and not yet written.
    private(set) var pendingBytes = 0
    /// Bytes of pushes (path lines, resyncs) queued and not yet written.
    private(set) var pushedBytes = 0
    /// How many path lines were superseded before they were written.
    private(set) var supersededCount = 0

    var isEmpty: Bool { pendingBytes == 0 }

    mutating func append(_ bytes: [UInt8], kind: Kind) {
        if case .path(let subscription) = kind, let position = latestPathLine[subscription] {
            let index = position - removed
            // The item at head may be half written: never drop that one.
            if index > head || (index == head && written == 0) {
                pendingBytes -= items[index].bytes.count
                pushedBytes -= items[index].bytes.count
                items[index].bytes = []
                supersededCount += 1
            }
        }
        if case .path(let subscription) = kind { latestPathLine[subscription] = removed + items.count }
        items.append(Item(kind: kind, bytes: bytes))
        pendingBytes += bytes.count
        if kind != .reply { pushedBytes += bytes.count }
    }

    /// Calls `write` with the unwritten bytes of the oldest line until it returns less
    /// than offered (the socket is full) or the queue is empty. `write` returns the
    /// number of bytes taken, or the error that ends the connection.
    mutating func drain(_ write: (UnsafeRawBufferPointer) -> Result<Int, Errno>) throws(Errno) {
        while head < items.count {
            let item = items[head]
            if !item.bytes.isEmpty {
                let taken = try item.bytes.withUnsafeBytes { raw in
                    write(UnsafeRawBufferPointer(rebasing: raw[written...]))
                }.get()
                written += taken
                pendingBytes -= taken
                if item.kind != .reply { pushedBytes -= taken }
                guard written == item.bytes.count else { return }
            }
            if case .path(let subscription) = item.kind, latestPathLine[subscription] == removed + head {
                latestPathLine[subscription] = nil
            }
            head += 1
            written = 0
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                removed += head
                head = 0
            }
        }
        removed += items.count
        items.removeAll(keepingCapacity: items.capacity <= 1024)
        head = 0
    }
}
