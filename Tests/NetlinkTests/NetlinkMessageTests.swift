// SPDX-License-Identifier: Apache-2.0
import CLinux
import Testing
@testable import Netlink

/// A request's message holds `NetlinkMessage.capacity` bytes: what every request pathd
/// sends needs fits, and an attribute past it is refused, never cut short.
@Suite("netlink request messages")
struct NetlinkMessageTests {
    @Test("a route lookup's header, rtmsg and two attributes fit; an attribute past the capacity throws")
    func capacity() throws {
        let message = try NetlinkMessage(type: Int32(RTM_GETROUTE), flags: Int32(NLM_F_REQUEST))
        #expect(Int32(message.header.pointee.nlmsg_type) == Int32(RTM_GETROUTE))
        #expect(Int32(message.header.pointee.nlmsg_flags) == Int32(NLM_F_REQUEST))
        #expect(message.header.pointee.nlmsg_seq == 0 && message.header.pointee.nlmsg_pid == 0)
        try message.append(rtmsg())
        try message.putAttribute(Int32(RTA_DST.rawValue), bytes: [UInt8](repeating: 0x20, count: 16))
        try message.putAttribute(Int32(RTA_OIF.rawValue), bytes: [2, 0, 0, 0])
        #expect(message.header.pointee.nlmsg_len == 56)

        let room = NetlinkMessage.capacity - 56 - 4  // an attribute's own header is 4 bytes
        #expect(throws: NetlinkError.self) {
            try message.putAttribute(Int32(RTA_MARK.rawValue), bytes: [UInt8](repeating: 0, count: room + 1))
        }
        #expect(message.header.pointee.nlmsg_len == 56, "a refused attribute leaves the message as it was")
        try message.putAttribute(Int32(RTA_MARK.rawValue), bytes: [UInt8](repeating: 0, count: room))
        #expect(Int(message.header.pointee.nlmsg_len) == NetlinkMessage.capacity)
    }
}
