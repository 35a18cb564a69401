// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite("CopyOnWrite: a value, though copies share one box")
struct CopyOnWriteTests {
    @Test("a copy changed leaves the original as it was, and the original changed leaves the copy")
    func copiesAreIndependent() {
        let original = CopyOnWrite([1, 2, 3])
        var copy = original
        copy.value.append(4)
        #expect(original.value == [1, 2, 3] && copy.value == [1, 2, 3, 4])
        var changed = original
        let kept = changed
        changed.value[0] = 9
        #expect(kept.value == [1, 2, 3] && changed.value == [9, 2, 3])
    }

    @Test("equal values are equal, with equal hashes, in one box or two")
    func equalityIsByValue() {
        let one = CopyOnWrite(["a": 1])
        let other = CopyOnWrite(["a": 1])
        let copy = one
        #expect(one == other && one == copy)
        #expect(one.hashValue == other.hashValue && one.hashValue == copy.hashValue)
        var changed = one
        changed.value["b"] = 2
        #expect(changed != one)
        changed.value["b"] = nil
        #expect(changed == one && Set([one, other, copy, changed]).count == 1)
    }
}
