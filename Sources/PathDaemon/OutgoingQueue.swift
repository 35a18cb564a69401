import SystemCalls

/// The lines waiting for one client to read them, bounded.
///
/// A path line supersedes an older unsent path line of the same subscription (the
/// client wants the newest path, not the history); any other line (a resync, an error,
/// a pong) is never dropped. The caller disconnects a client whose queue passes its
/// byte limit, so memory per client is bounded.
struct OutgoingQueue {
    enum Kind: Equatable {
        /// A path line of the subscription with this key; supersedable.
        case path(subscription: Int)
        case other
    }

    private struct Item {
        var kind: Kind
        var bytes: [UInt8]
    }

    private var items: [Item] = []
    private var head = 0
    /// How much of the item at `head` was already written.
    private var written = 0

    /// Bytes queued and not yet written.
    private(set) var pendingBytes = 0
    /// How many path lines were superseded before they were written.
    private(set) var supersededCount = 0

    var isEmpty: Bool { head == items.count }

    mutating func append(_ bytes: [UInt8], kind: Kind) {
        if case .path = kind {
            // The item at head may be half written: never replace that one.
            let firstReplaceable = written > 0 ? head + 1 : head
            if firstReplaceable < items.count,
               let old = items[firstReplaceable...].firstIndex(where: { $0.kind == kind }) {
                pendingBytes -= items[old].bytes.count
                items.remove(at: old)
                supersededCount += 1
            }
        }
        items.append(Item(kind: kind, bytes: bytes))
        pendingBytes += bytes.count
    }

    /// Calls `write` with the unwritten bytes of the oldest line until it returns less
    /// than offered (the socket is full) or the queue is empty. `write` returns the
    /// number of bytes taken, or the error that ends the connection.
    mutating func drain(_ write: (UnsafeRawBufferPointer) -> Result<Int, Errno>) throws(Errno) {
        while head < items.count {
            let item = items[head]
            let taken = try item.bytes.withUnsafeBytes { raw in
                write(UnsafeRawBufferPointer(rebasing: raw[written...]))
            }.get()
            written += taken
            pendingBytes -= taken
            guard written == item.bytes.count else { return }
            head += 1
            written = 0
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
        }
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
