// SPDX-License-Identifier: Apache-2.0

extension Array {
    /// `count` nils, one per request of a batch until its reply is read. Not
    /// `Array(repeating:count:)`: its buffer comes from a standard library function
    /// compiled once for every element type, which asks the Swift runtime for the
    /// buffer's metadata at each call, cold before every change's line
    /// (docs/PERFORMANCE.md, "Network identity, measured"); appended here, the element
    /// type is known where it is compiled.
    static func unanswered<Wrapped>(_ count: Int) -> [Wrapped?] where Element == Wrapped? {
        var nils: [Wrapped?] = []
        nils.reserveCapacity(count)
        for _ in 0..<count { nils.append(nil) }
        return nils
    }
}
