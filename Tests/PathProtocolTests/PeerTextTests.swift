// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

@Suite("a peer's text on one line")
struct PeerTextTests {
    @Test("lines are joined with \"; \", blank ones dropped, each trimmed",
          arguments: [
            ("configuration not reloaded: a:1: x\na:2: y", "configuration not reloaded: a:1: x; a:2: y"),
            ("one\r\ntwo\rthree\n\n  four  \n", "one; two; three; four"),
            ("para\u{2028}graph", "para; graph"),
            ("already one line", "already one line"),
            ("", ""),
          ])
    func joined(text: String, expected: String) {
        #expect(PeerText.oneLine(text) == expected)
    }

    @Test("a tab is a space; other control characters are written out, never passed to a terminal")
    func controls() {
        #expect(PeerText.oneLine("a\tb") == "a b")
        #expect(PeerText.oneLine("red \u{1B}[31m\u{7F}\u{9B}x\u{0}") == "red \\u{1b}[31m\\u{7f}\\u{9b}x\\u{0}")
        #expect(PeerText.oneLine("wlan0 — naïve ✓") == "wlan0 — naïve ✓")
    }
}
