// SPDX-License-Identifier: Apache-2.0
/// The identity of one monitor instance (one netlink subscription and its dumps).
///
/// A monitor is cancelled and replaced, never restarted: after a kernel overrun the
/// daemon makes a new instance with `next()`. Every event carries the generation of the
/// instance that produced it, and the state queue drops an event whose generation is
/// not the current one, so nothing a cancelled instance still had in flight can touch
/// the state of its successor.
public struct Generation: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The first generation a daemon hands out.
    public static let first = Generation(rawValue: 1)

    /// The generation of the next monitor instance (wraps rather than traps).
    public func next() -> Generation { Generation(rawValue: rawValue &+ 1) }

    public static func < (lhs: Generation, rhs: Generation) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
