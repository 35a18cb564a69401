// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel
import Testing
@testable import Netlink

/// RTM_NEWNDUSEROPT, from byte fixtures: the messages the kernel sent for radvd's and a
/// raw sender's router advertisements in a namespace (kernel 6.18), and broken ones.
@Suite("router advertisement options, from byte fixtures")
struct RouterOptionDecoderTests {
    private typealias M = MessageBytes
    private static let router = "fe800000000000004c57b9fffe9533f8"
    private static let readAt = MonotonicInstant(sinceBoot: .seconds(7))

    private static func bytes(_ hex: String) -> [UInt8] { Hexadecimal.bytes(hex) ?? [] }

    /// An RTM_NEWNDUSEROPT as the kernel writes it: nduseroptmsg, the option, NDUSEROPT_SRCADDR.
    private static func message(option hex: String, icmpType: UInt8 = 134, family: UInt8 = 10,
                                source: String? = router, index: Int32 = 2) -> [UInt8] {
        let option = bytes(hex)
        var header = nduseroptmsg()
        header.nduseropt_family = family
        header.nduseropt_opts_len = UInt16(option.count)
        header.nduseropt_ifindex = index
        header.nduseropt_icmp_type = icmpType
        return M.message(type: RTM_NEWNDUSEROPT, body: M.bytes(of: header) + option,
                         attributes: source.map { [(UInt16(NDUSEROPT_SRCADDR), bytes($0))] } ?? [])
    }

    private static func decode(_ message: [UInt8]) -> RouterOption? {
        var copy = message
        return copy.withUnsafeMutableBytes { raw in
            RouterOptionDecoder.decode(raw.baseAddress!.assumingMemoryBound(to: nlmsghdr.self), receivedAt: readAt)
        }
    }

    /// radvd 2.19, `DNSSL hotel.example corp.example { };`: lifetime 4 s.
    static let radvdSearchList = "1f0500000000000405686f74656c076578616d706c650004636f7270076578616d706c6500000000"

    @Test func aSearchListFromRadvd() throws {
        let option = try #require(Self.decode(Self.message(option: Self.radvdSearchList)))
        #expect(option.interface == InterfaceIndex(rawValue: 2))
        #expect(option.router == IPAddress("fe80::4c57:b9ff:fe95:33f8"))
        #expect(option.receivedAt == Self.readAt)
        #expect(option.content == .dnsSearchList(["hotel.example", "corp.example"], lifetime: .seconds(4)))
    }

    @Test func lifetimesZeroAndInfinity() {
        // radvd's last advertisement when it stops: the same list with lifetime 0.
        let withdrawn = "1f0500000000000005686f74656c076578616d706c650004636f7270076578616d706c6500000000"
        #expect(RouterOptionDecoder.content(ofOption: Self.bytes(withdrawn))
                == .dnsSearchList(["hotel.example", "corp.example"], lifetime: .zero))
        let infinite = "1f030000ffffffff05686f74656c076578616d706c650000"
        #expect(RouterOptionDecoder.content(ofOption: Self.bytes(infinite))
                == .dnsSearchList(["hotel.example"], lifetime: nil))
    }

    @Test func aCaptivePortal() throws {
        let portal = "250568747470733a2f2f706f7274616c2e686f74656c2e6578616d706c652f617069000000000000"
        let option = try #require(Self.decode(Self.message(option: portal)))
        #expect(option.content == .captivePortal("https://portal.hotel.example/api"))
        let unrestricted = Array("urn:ietf:params:capport:unrestricted".utf8)
        let padded = [37, 5] + unrestricted + [UInt8](repeating: 0, count: 40 - 2 - unrestricted.count)
        #expect(RouterOptionDecoder.content(ofOption: padded) == .captivePortal(nil))
    }

    @Test func otherOptionsAndMessagesAreNotRead() {
        // The prefix information the kernel passes on too (type 3).
        let prefix = "030440c000015180000038400000000020010db8000100000000000000000000"
        #expect(Self.decode(Self.message(option: prefix)) == nil)
        #expect(Self.decode(Self.message(option: Self.radvdSearchList, icmpType: 133)) == nil)
        #expect(Self.decode(Self.message(option: Self.radvdSearchList, family: 2)) == nil)
        #expect(Self.decode(Self.message(option: Self.radvdSearchList, source: nil)) == nil)
        #expect(Self.decode(Self.message(option: Self.radvdSearchList, source: "c0a80101")) == nil)
        #expect(Self.decode(Self.message(option: Self.radvdSearchList, index: 0)) == nil)
    }

    @Test(arguments: [
        "1f05000000000004",  // shorter than its length says
        "1f0100000000000405686f74",  // length not a multiple of 8
        "1f02000000000004ff686f74656c0000",  // a label past the option
        "1f0300000000000405686f74656c0a6578616d706c650000",  // a name never ended
        "1f020000000000040000000000000000",  // no name at all
        "1f0300000000000405686f5f656c076578616d706c650000",  // "ho_el.example": not a host name
        "2501ff00000000ff",  // a portal that is no URI
        "2502667470003a2f2f78000000000000",  // "ftp" (then NULs): no https or http URI
    ])
    func malformedOptionsAreDropped(hex: String) {
        #expect(RouterOptionDecoder.content(ofOption: Self.bytes(hex)) == nil)
    }

    @Test func aTruncatedMessageIsDropped() {
        let whole = Self.message(option: Self.radvdSearchList)
        var short = Array(whole.prefix(40))
        short.replaceSubrange(0..<4, with: M.host(UInt32(short.count)))
        #expect(Self.decode(short) == nil)
    }
}
