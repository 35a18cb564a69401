// SPDX-License-Identifier: Apache-2.0
import CLinux
import Foundation
import PathModel
import PathTestFixtures
import Testing
@testable import Netlink

/// The route filter attached in a namespace's kernel: changes made with `ip` arrive,
/// or not, exactly as the interpreter's tests say (RouteFilterTests).
@Suite(.enabled(if: namespaceSupport.isAvailable, "needs root and ip netns: \(namespaceSupport.reason)"), .blocking)
struct RouteFilterKernelTests {
    /// What one received message was, for comparing with the expected sequence.
    private enum Received: Equatable, CustomStringConvertible {
        case route(String)
        case address(String)

        var description: String {
            switch self {
            case .route(let text): "route \(text)"
            case .address(let text): "address \(text)"
            }
        }
    }

    @Test("the kernel takes the program and delivers only the messages it passes, in order")
    func kernelDeliversWhatTheProgramPasses() throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        try namespace.ip("link", "set", "lo", "up")

        let socket = try namespace.onJoinedThread {
            let socket = try NetlinkSocket(role: "filter test socket")
            let program = RouteFilter.program(lookupDestinations: .standard)
            _ = try socket.attachFilter(program).get("setsockopt(SO_ATTACH_FILTER)")
            for group in [RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE] {
                try socket.addMembership(group)
            }
            try socket.setReceiveTimeout(seconds: 5)
            return socket
        }

        let changes: [(arguments: [String], passes: Received?)] = [
            (["route", "add", "unreachable", "100.64.3.7/32"], nil),
            (["route", "add", "unreachable", "203.0.113.0/24"], .route("203.0.113.0/24")),
            (["route", "add", "unreachable", "10.0.0.0/8"], nil),
            (["route", "add", "unreachable", "0.0.0.0/1"], .route("0.0.0.0/1")),
            (["route", "add", "unreachable", "128.0.0.0/1"], .route("128.0.0.0/1")),
            (["-6", "route", "add", "unreachable", "2001:db8::/48"], .route("2001:db8::/48")),
            (["-6", "route", "add", "unreachable", "2001:db8:1::5/128"], nil),
            (["-6", "route", "add", "unreachable", "2001:db8:1::/64", "from", "2001:db8:2::/64"],
             .route("2001:db8:1::/64 from /64")),
            (["route", "del", "unreachable", "100.64.3.7/32"], nil),
            (["route", "del", "unreachable", "203.0.113.0/24"], .route("203.0.113.0/24")),
            // The address passes; the local /32 route the kernel adds with it does not.
            (["address", "add", "100.64.9.9/32", "dev", "lo"], .address("100.64.9.9/32")),
            (["route", "add", "unreachable", "default"], .route("0.0.0.0/0")),
        ]
        for change in changes { try namespace.ip(change.arguments) }

        let expected = changes.compactMap(\.passes)
        let received = try Self.receiveUntilDefaultRoute(on: socket)
        #expect(received == expected)
    }

    @Test("a new program attached to the live socket takes over at once: a watched destination's routes pass")
    func reattachOnTheLiveSocket() throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        try namespace.ip("link", "set", "lo", "up")
        // The largest program: as many IPv6 destinations as are covered, and one IPv4.
        var watched = Set((1..<RouteFilter.maximumWatchedDestinations).map { index in
            IPAddress(bytes: [0x20, 0x01, 0x0d, 0xb8, 0xee, UInt8(index)] + [UInt8](repeating: 0, count: 9) + [1])!
        })
        let socket = try namespace.onJoinedThread {
            let socket = try NetlinkSocket(role: "filter test socket")
            let program = RouteFilter.program(lookupDestinations: .standard, watching: watched)
            _ = try socket.attachFilter(program).get("setsockopt(SO_ATTACH_FILTER)")
            for group in [RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE] { try socket.addMembership(group) }
            try socket.setReceiveTimeout(seconds: 5)
            return socket
        }
        try namespace.ip("route", "add", "unreachable", "198.51.100.0/24")
        watched.insert(IPAddress("198.51.100.7")!)
        let widened = RouteFilter.program(lookupDestinations: .standard, watching: watched)
        _ = try socket.attachFilter(widened).get("setsockopt(SO_ATTACH_FILTER) again, \(widened.count) instructions")
        try namespace.ip("route", "add", "unreachable", "198.51.100.0/25")
        try namespace.ip("route", "add", "unreachable", "192.0.2.0/24")
        try namespace.ip("-6", "route", "add", "unreachable", "2001:db8:ee05::/48")
        try namespace.ip("route", "add", "unreachable", "default")
        let received = try Self.receiveUntilDefaultRoute(on: socket)
        // The /24 came before the destination was watched; 192.0.2.0/24 covers none.
        #expect(received == [.route("198.51.100.0/25"), .route("2001:db8:ee05::/48"), .route("0.0.0.0/0")])
    }

    /// What the socket receives, up to the default route each test adds last.
    private static func receiveUntilDefaultRoute(on socket: NetlinkSocket) throws -> [Received] {
        var received: [Received] = []
        let buffer = ReceiveBuffer()
        while received.last != .route("0.0.0.0/0") {
            let length = try socket.receive(into: buffer).get("receive (so far: \(received))")
            buffer.forEachMessage(length: length) { header in
                if let message = describe(header) { received.append(message) }
                return true
            }
        }
        return received
    }

    private static func describe(_ header: UnsafeMutablePointer<nlmsghdr>) -> Received? {
        switch Int(header.pointee.nlmsg_type) {
        case RTM_NEWROUTE, RTM_DELROUTE:
            guard header.hasPayload(of: rtmsg.self) else { return nil }
            let route = header.payload(as: rtmsg.self)
            let family = AddressFamily(linuxValue: route.rtm_family)
            let destination = Attributes.parse(header, headerSize: MemoryLayout<rtmsg>.size,
                                               maxType: Int(__RTA_MAX.rawValue) - 1) {
                $0.ipAddress(Int(RTA_DST.rawValue))
            } ?? nil
            let zero = family == .ipv6 ? "::" : "0.0.0.0"
            let source = route.rtm_src_len > 0 ? " from /\(route.rtm_src_len)" : ""
            return .route("\(destination.map(String.init(describing:)) ?? zero)/\(route.rtm_dst_len)\(source)")
        case RTM_NEWADDR, RTM_DELADDR:
            guard case .changed(let address) = AddressDecoder.decode(header) else { return nil }
            return .address("\(address.address)/\(address.prefixLength)")
        default:
            return nil
        }
    }
}
