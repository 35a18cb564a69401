// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite("Generation")
struct GenerationTests {
    @Test func firstIsOneAndNextCounts() {
        #expect(Generation.first.rawValue == 1)
        #expect(Generation.first.next().rawValue == 2)
        #expect(Generation.first.next().next() == Generation(rawValue: 3))
        #expect(Generation.first < Generation.first.next())
    }

    @Test func nextWrapsInsteadOfTrapping() {
        let last = Generation(rawValue: .max)
        #expect(last.next() == Generation(rawValue: 0))
        #expect(last.next() != last)
    }

    @Test func describesItselfAsTheNumber() {
        #expect(Generation(rawValue: 42).description == "42")
        #expect(Generation(rawValue: .max).description == "18446744073709551615")
    }
}
