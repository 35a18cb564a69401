// SPDX-License-Identifier: Apache-2.0
/// A value kept in one heap box that copies share until one of them changes it (copy on
/// write, as the standard library's collections do): a copy is one retain, not one per
/// part. For values copied at every change before the path's line (`Snapshot`, and
/// `Policy` in PathSettings), whose parts would otherwise each be retained and released,
/// cold. Inlinable, so that the modules reading such a value read it in place.
public struct CopyOnWrite<Value: Hashable & Sendable>: Hashable, Sendable {
    /// `@unchecked Sendable`: copies on any thread may share one box, and that is safe
    /// because it is changed only through `value`'s `_modify`, after
    /// `isKnownUniquelyReferenced` proved that no other copy holds it; sharers only read it.
    @usableFromInline final class Box: @unchecked Sendable {
        @usableFromInline var value: Value

        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    public init(_ value: Value) {
        box = Box(value)
    }

    public var value: Value {
        @inlinable _read { yield box.value }
        @inlinable _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    public static func == (left: Self, right: Self) -> Bool {
        left.box === right.box || left.box.value == right.box.value
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(box.value) }
}
