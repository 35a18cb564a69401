// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// State that belongs to one serial queue, as swift-nio's `NIOLoopBoundBox` belongs to an
/// event loop: it is `Sendable` whatever `Value` is, because `value` can be read or
/// changed only on `queue`, and anywhere else it traps (`dispatchPrecondition`, kept in
/// release builds). A class whose mutable state is one `QueueBound` is checked
/// `Sendable`: no `@unchecked`, and no comment saying which queue may touch what.
///
/// Copies share one value (it is a reference). The check costs about what one
/// `dispatchPrecondition` costs (docs/PERFORMANCE.md, "Queue-bound state").
public struct QueueBound<Value>: @unchecked Sendable {
    /// The queue `value` belongs to.
    public let queue: DispatchQueue
    private let cell: Cell

    /// Binds `value` to `queue`, from `queue` (checked): `value` may be shared with
    /// other code there (`self`, to be captured by work that hops back onto `queue`).
    public init(_ value: Value, on queue: DispatchQueue) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.queue = queue
        cell = Cell(value)
    }

    /// Binds `value` to `queue`, from anywhere (a constructor not yet on its queue):
    /// `sending`, nothing else keeps a reference to it.
    public init(sending value: sending Value, on queue: DispatchQueue) {
        self.queue = queue
        cell = Cell(value)
    }

    /// The value; traps unless the caller runs on `queue`. Lent, not copied, to a reader
    /// (`_read`): one member of a large value is read without the rest being retained.
    public var value: Value {
        _read {
            dispatchPrecondition(condition: .onQueue(queue))
            yield cell.value
        }
        nonmutating _modify {
            dispatchPrecondition(condition: .onQueue(queue))
            yield &cell.value
        }
    }

    private final class Cell {
        var value: Value

        init(_ value: Value) {
            self.value = value
        }
    }
}
