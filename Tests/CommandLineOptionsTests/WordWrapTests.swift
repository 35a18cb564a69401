// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Testing

@Suite("wordWrapped: help texts and the example configuration's comments")
struct WordWrapTests {
    @Test("lines are as full as the width allows, a word is never split, runs of spaces collapse")
    func fillsLines() {
        #expect(wordWrapped("one two  three four", width: 9) == ["one two", "three", "four"])
        #expect(wordWrapped("one two", width: 7) == ["one two"])
        #expect(wordWrapped("a unbreakable-word b", width: 5) == ["a", "unbreakable-word", "b"])
        #expect(wordWrapped("", width: 10) == [""])
    }
}
