// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

@Suite("glob patterns (fnmatch without flags)")
struct GlobPatternTests {
    static let cases: [(pattern: String, name: String, matches: Bool)] = [
        ("eth0", "eth0", true),
        ("eth0", "eth1", false),
        ("eth0", "eth00", false),
        ("", "", true),
        ("", "a", false),
        ("*", "", true),
        ("*", "anything", true),
        ("eth*", "eth", true),
        ("eth*", "eth0", true),
        ("eth*", "wlan0", false),
        ("*0", "wwan0", true),
        ("*0", "wwan1", false),
        ("w*n*", "wwan0", true),
        ("w*n*0", "wwan1", false),
        ("*a*b*c*", "xaxbxcx", true),
        ("*a*b*c*", "xaxcxbx", false),
        ("**", "x", true),
        ("?", "a", true),
        ("?", "", false),
        ("?", "ab", false),
        ("eth?", "eth1", true),
        ("eth??", "eth1", false),
        ("[abc]", "b", true),
        ("[abc]", "d", false),
        ("[a-c]x", "bx", true),
        ("[a-c]x", "dx", false),
        ("[!a-c]", "d", true),
        ("[!a-c]", "a", false),
        ("[^0-9]", "x", true),
        ("[^0-9]", "5", false),
        ("[]]", "]", true),
        ("[!]]", "a", true),
        ("[!]]", "]", false),
        ("[a-]", "-", true),
        ("[a-]", "b", false),
        ("[", "[", true),
        ("[abc", "[abc", true),
        ("[abc", "a", false),
        ("\\*", "*", true),
        ("\\*", "a", false),
        ("a\\?", "a?", true),
        ("a\\", "a\\", true),
        ("[\\]]", "]", true),
        ("veth[0-9]*", "veth12", true),
        ("veth[0-9]*", "vethx", false),
        ("wg*", "wg0", true),
        ("*.100", "eth0.100", true),
    ]

    @Test("matches like fnmatch", arguments: cases)
    func table(_ pattern: String, _ name: String, _ expected: Bool) {
        #expect(GlobPattern(pattern).matches(name) == expected, "\(pattern) against \(name)")
    }

    @Test("a pathological pattern against a long name stays polynomial")
    func noExponentialBacktracking() {
        let pattern = GlobPattern(String(repeating: "*a", count: 2000) + "b")
        let name = String(repeating: "a", count: 4000)
        #expect(!pattern.matches(name))
        #expect(GlobPattern(String(repeating: "*a", count: 2000)).matches(name))
    }
}

@Suite("match lists with negation")
struct MatchListTests {
    func list(_ terms: String...) -> MatchList {
        var list = MatchList()
        for term in terms { list.append(term) }
        return list
    }

    @Test func emptyAdmitsEverythingIncludingNothing() {
        #expect(MatchList().admits("eth0"))
        #expect(MatchList().admits(nil))
    }

    @Test func plainTermsNeedOneMatch() {
        let names = list("eth*", "wlan0")
        #expect(names.admits("eth3"))
        #expect(names.admits("wlan0"))
        #expect(!names.admits("wlan1"))
        #expect(!names.admits(nil))
    }

    @Test func negatedTermsExclude() {
        let names = list("wwan*", "!wwan9")
        #expect(names.admits("wwan0"))
        #expect(!names.admits("wwan9"))
        #expect(!names.admits("eth0"))
        let allBut = list("!lo", "!docker*")
        #expect(allBut.admits("eth0"))
        #expect(!allBut.admits("docker0"))
        #expect(allBut.admits(nil))
        #expect(allBut.terms == ["!lo", "!docker*"])
    }
}
