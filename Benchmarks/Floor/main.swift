// SPDX-License-Identifier: Apache-2.0
// pathd-floor: the least a reader can do, for `make bench`'s floor figures
// (Benchmarks/bench.py, the `floor` and `readers` parts).
//
//   pathd-floor                          read rtnetlink and write only
//   pathd-floor --lookups [IFINDEX]...   and ask pathd's lookups first
//   pathd-floor --relay SOCKET           subscribe to pathd at SOCKET and copy its lines
//
// In the first two forms it blocks in recv(2) on an rtnetlink socket subscribed to links
// and routes, as `ip monitor link route` does; with --lookups, after each message it asks
// the kernel pathd's route lookups (RTM_GETROUTE, as pathd does before a verdict: all in
// one sendto(2), the answers read with one recvmmsg(2); after a route's message only its
// family's, as pathd asks); then it writes one line to stdout with one write(2): "change
// N" and the message type of each answer. No verdict, no JSON: what is left of a reader
// that may not skip the lookups a verdict needs. pathd's lookups are one per family to its
// destinations (LookupDestinations.standard) and the same restricted to each interface
// IFINDEX (RTA_OIF), as pathd asks them of the interfaces a path may use.
//
// With --relay it sends pathd the subscribe request, then copies what each blocking
// read(2) returns to stdout with one write(2): what is left of `pathctl monitor --json`
// if it neither framed, checked nor decoded a line.
import CLinux
import Glibc
import PathModel
import SystemCalls

/// Ends the program with `message`, and the system call's error when it is one.
func fail(_ message: String, systemCall: Bool = true) -> Never {
    let reason = systemCall ? ": \(String(cString: strerror(errno)))" : ""
    let bytes = Array("pathd-floor: \(message)\(reason)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// One lookup: the destination, and the interface it is restricted to, if any.
struct Lookup {
    let destination: IPAddress
    let interface: Int32?
}

/// One RTM_GETROUTE request: header, rtmsg, RTA_DST and, when restricted, RTA_OIF.
func request(_ lookup: Lookup, sequence: UInt32) -> [UInt8] {
    func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    let address = lookup.destination.bytes
    let family = lookup.destination.family == .ipv4 ? AF_INET : AF_INET6
    var attributes = little(UInt16(4 + address.count)) + little(UInt16(RTA_DST.rawValue)) + address
    if let index = lookup.interface {
        attributes += little(UInt16(8)) + little(UInt16(RTA_OIF.rawValue)) + little(index)
    }
    let rtmsg: [UInt8] = [UInt8(family), UInt8(address.count * 8), 0, 0, 0, 0, 0, 0] + little(UInt32(0))
    let total = 16 + rtmsg.count + attributes.count
    return little(UInt32(total)) + little(UInt16(RTM_GETROUTE)) + little(UInt16(NLM_F_REQUEST))
        + little(sequence) + little(UInt32(0)) + rtmsg + attributes
}

func netlinkSocket(groups: UInt32) -> Int32 {
    let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
    guard descriptor >= 0 else { fail("socket") }
    var address = sockaddr_nl()
    address.nl_family = sa_family_t(AF_NETLINK)
    address.nl_groups = groups
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
        }
    }
    guard bound == 0 else { fail("bind") }
    return descriptor
}

/// `--relay SOCKET`: copies pathd's subscription to stdout until pathd closes it.
func relay(_ path: String) -> Never {
    let connection: FileDescriptor
    do {
        connection = try UnixSocket.connect(to: UnixSocketAddress(path: path))
        try connection.writeAll(Array(#"{"op":"subscribe"}"#.utf8) + [0x0A])
    } catch {
        fail("subscribe at \(path): \(error)", systemCall: false)
    }
    let output = FileDescriptor(rawValue: 1)
    let size = 65_536
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
    while true {
        let count = read(connection.rawValue, buffer, size)
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { fail("read") }
        if count == 0 { exit(0) }
        do {
            try output.writeAll(UnsafeRawBufferPointer(start: buffer, count: count))
        } catch {
            fail("write: \(error)", systemCall: false)
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
var destinations: [Lookup] = []
if arguments.first == "--relay" {
    guard arguments.count == 2 else { fail("usage: pathd-floor --relay SOCKET", systemCall: false) }
    relay(arguments[1])
} else if arguments.first == "--lookups" {
    let families = [LookupDestinations.standard.ipv4, LookupDestinations.standard.ipv6]
    destinations = families.map { Lookup(destination: $0, interface: nil) }
    for argument in arguments.dropFirst() {
        guard let index = Int32(argument) else { fail("not an interface index: \(argument)", systemCall: false) }
        destinations += families.map { Lookup(destination: $0, interface: index) }
    }
} else if !arguments.isEmpty {
    fail("usage: pathd-floor [--lookups [IFINDEX]... | --relay SOCKET]", systemCall: false)
}
let monitor = netlinkSocket(groups: UInt32(RTMGRP_LINK | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE))
let lookups = netlinkSocket(groups: 0)
var kernel = sockaddr_nl()
kernel.nl_family = sa_family_t(AF_NETLINK)

let bufferSize = 32_768
let message = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
let answers = (0..<max(destinations.count, 1)).map { _ in
    UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
}
var vectors = [iovec](repeating: iovec(), count: answers.count)
var headers = [pathd_mmsghdr](repeating: pathd_mmsghdr(), count: answers.count)
var changes = 0
var sequence: UInt32 = 0

while true {
    let received = recv(monitor, message, bufferSize, 0)
    if received < 0 {
        if errno == EINTR { continue }
        // ENOBUFS: an overrun; a floor has nothing to resynchronise, it reads on.
        if errno == ENOBUFS { continue }
        fail("recv")
    }
    changes += 1
    var line = "change \(changes)"
    // A route's message asks about its family only; any other, both.
    let type = Int32(message.loadUnaligned(fromByteOffset: 4, as: UInt16.self))
    var asked = destinations
    if received >= 17, type == RTM_NEWROUTE || type == RTM_DELROUTE {
        let family: AddressFamily = Int32(message.load(fromByteOffset: 16, as: UInt8.self)) == AF_INET ? .ipv4 : .ipv6
        asked = destinations.filter { $0.destination.family == family }
    }
    if !asked.isEmpty {
        var requests: [UInt8] = []
        for destination in asked {
            sequence &+= 1
            requests += request(destination, sequence: sequence)
        }
        let sent = requests.withUnsafeBytes { bytes in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(lookups, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard sent == requests.count else { fail("sendto") }
        var answered = 0
        while answered < asked.count {
            for index in 0..<answers.count {
                vectors[index] = iovec(iov_base: answers[index], iov_len: bufferSize)
            }
            let count = vectors.withUnsafeMutableBufferPointer { iov in
                for index in 0..<headers.count {
                    headers[index] = pathd_mmsghdr()
                    headers[index].msg_hdr.msg_iov = iov.baseAddress! + index
                    headers[index].msg_hdr.msg_iovlen = 1
                }
                return headers.withUnsafeMutableBufferPointer {
                    recvmmsg(lookups, $0.baseAddress, UInt32(asked.count - answered),
                             pathd_msg_waitforone, nil)
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                fail("recvmmsg")
            }
            for index in 0..<Int(count) {
                line += " \(answers[index].loadUnaligned(fromByteOffset: 4, as: UInt16.self))"
            }
            answered += Int(count)
        }
    }
    let bytes = Array((line + "\n").utf8)
    guard bytes.withUnsafeBytes({ write(1, $0.baseAddress, $0.count) }) == bytes.count else { fail("write") }
}
