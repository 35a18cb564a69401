// SPDX-License-Identifier: Apache-2.0
// pathd-decode-bench: pathd's rtnetlink decoders (Sources/Netlink/*Decoder.swift) against
// libnl-route-3's objects, on the same captured messages. Benchmarks/decodebench.py builds
// the namespace and runs it; docs/ARCHITECTURE.md, "Why not libnl-route's objects", holds
// the numbers.
//
//   pathd-decode-bench capture FILE
//       dumps this namespace's links, addresses, rules, neighbours and routes into FILE
//       (the kernel's messages as they arrived, NLMSG_DONE left out)
//   pathd-decode-bench time FILE [ROUNDS]
//       prints "time KIND DECODER COUNT NS-PER-MESSAGE" per kind and decoder: the median
//       of ROUNDS (default 21) passes over every message of the kind, in thread CPU time
//   pathd-decode-bench parse FILE KIND DECODER ROUNDS
//       only that decoder on that kind, ROUNDS passes: valgrind counts its allocations
//   pathd-decode-bench cache FILE
//       prints "cache KIND MESSAGES OBJECTS BYTES-PER-MESSAGE NANOSECONDS": the heap libnl's objects
//       of every route and neighbour hold, kept in a libnl cache as a dump fills one
//
// DECODER: pathd (the decoder pathd runs), libnl (rtnl_neigh_parse / rtnl_route_parse, the
// object read through its getters), libnl-msg (nlmsg_convert + nl_msg_parse, the generic
// parser every libnl cache runs). Both sides build the same values: what pathd keeps.
import CLinux
import CNetlinkRoute
import Glibc
import Netlink
import PathModel

func fail(_ message: String) -> Never {
    let line = "pathd-decode-bench: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func nanoseconds(_ clock: clockid_t) -> Int64 {
    var now = timespec()
    clock_gettime(clock, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// The timings' clock: this thread's CPU time, so that a pass the scheduler interrupts on
/// a busy machine is not charged the other processes' time.
func cpuNanoseconds() -> Int64 { nanoseconds(CLOCK_THREAD_CPUTIME_ID) }

// MARK: - Capture

/// One dump request: `type` with a zeroed family header of `headerSize` bytes.
func dump(_ socket: Int32, type: Int, headerSize: Int, sequence: UInt32, into out: inout [UInt8]) {
    var request = [UInt8](repeating: 0, count: MemoryLayout<nlmsghdr>.size + headerSize)
    request.withUnsafeMutableBytes { bytes in
        var header = nlmsghdr()
        header.nlmsg_len = UInt32(bytes.count)
        header.nlmsg_type = UInt16(type)
        header.nlmsg_flags = UInt16(NLM_F_REQUEST | NLM_F_DUMP)
        header.nlmsg_seq = sequence
        bytes.storeBytes(of: header, as: nlmsghdr.self)
    }
    guard send(socket, request, request.count, 0) == request.count else { fail("send: \(errno)") }
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 8)
    defer { buffer.deallocate() }
    while true {
        let received = recv(socket, buffer, 1 << 20, 0)
        guard received > 0 else { fail("recv: \(errno)") }
        var offset = 0
        while offset + MemoryLayout<nlmsghdr>.size <= received {
            let header = buffer.advanced(by: offset).load(as: nlmsghdr.self)
            let length = Int(header.nlmsg_len)
            guard length >= MemoryLayout<nlmsghdr>.size, offset + length <= received else { fail("short message") }
            if Int32(header.nlmsg_type) == NLMSG_DONE { return }
            if Int32(header.nlmsg_type) == NLMSG_ERROR { fail("dump \(type) answered an error") }
            let aligned = (length + 3) & ~3
            out += UnsafeRawBufferPointer(start: buffer.advanced(by: offset), count: length)
            out += [UInt8](repeating: 0, count: aligned - length)
            offset += aligned
        }
    }
}

func capture(to path: String) {
    let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
    guard fd >= 0 else { fail("socket: \(errno)") }
    var bytes: [UInt8] = []
    let dumps: [(Int, Int)] = [(RTM_GETLINK, MemoryLayout<ifinfomsg>.size), (RTM_GETADDR, MemoryLayout<ifaddrmsg>.size),
                               (RTM_GETRULE, MemoryLayout<fib_rule_hdr>.size),
                               (Int(RTM_GETNEIGH), MemoryLayout<ndmsg>.size), (RTM_GETROUTE, MemoryLayout<rtmsg>.size)]
    for (sequence, (type, size)) in dumps.enumerated() {
        dump(fd, type: type, headerSize: size, sequence: UInt32(sequence + 1), into: &bytes)
    }
    close(fd)
    guard let file = fopen(path, "w"), fwrite(bytes, 1, bytes.count, file) == bytes.count, fclose(file) == 0 else {
        fail("cannot write \(path)")
    }
}

// MARK: - The captured messages

enum Kind: String, CaseIterable {
    case link, address, rule, neighbour, route

    var messageType: Int {
        switch self {
        case .link: RTM_NEWLINK
        case .address: RTM_NEWADDR
        case .rule: RTM_NEWRULE
        case .neighbour: Int(RTM_NEWNEIGH)
        case .route: RTM_NEWROUTE
        }
    }
}

/// The file's messages in one 8-byte-aligned block, as a receive buffer holds them.
struct Capture {
    let memory: UnsafeMutableRawPointer
    var messages: [Kind: [UnsafeMutablePointer<nlmsghdr>]] = [:]

    init(path: String) {
        guard let file = fopen(path, "r") else { fail("cannot read \(path)") }
        fseek(file, 0, SEEK_END)
        let size = ftell(file)
        fseek(file, 0, SEEK_SET)
        memory = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 8)
        guard fread(memory, 1, size, file) == size else { fail("short read of \(path)") }
        fclose(file)
        var offset = 0
        while offset + MemoryLayout<nlmsghdr>.size <= size {
            let header = memory.advanced(by: offset).assumingMemoryBound(to: nlmsghdr.self)
            if let kind = Kind.allCases.first(where: { $0.messageType == Int(header.pointee.nlmsg_type) }) {
                messages[kind, default: []].append(header)
            }
            offset += (Int(header.pointee.nlmsg_len) + 3) & ~3
        }
    }
}

// MARK: - The decoders

/// What every decoder's result adds to, so that nothing is optimised away.
nonisolated(unsafe) var checksum = 0

/// The facts pathd keeps of a link (`LinkAttributes`), from libnl's object.
struct LinkFacts {
    var index: InterfaceIndex, name: String, flags: LinkFlags, operState: OperState
    var hardwareType: HardwareType, kind: String?, master: InterfaceIndex?
}

func bytes(of address: OpaquePointer?) -> UnsafeRawBufferPointer? {
    guard let address, let data = nl_addr_get_binary_addr(address) else { return nil }
    return UnsafeRawBufferPointer(start: data, count: Int(nl_addr_get_len(address)))
}

func family(_ value: Int32) -> AddressFamily? { AddressFamily(linuxValue: UInt8(truncatingIfNeeded: value)) }

/// The values pathd builds from one libnl object, whatever parsed it.
func consume(_ object: OpaquePointer, kind: Kind) {
    switch kind {
    case .neighbour:
        guard let address = bytes(of: rtnl_neigh_get_dst(object)).flatMap({ IPAddress(bytes: $0) }) else { return }
        let neighbour = Neighbour(
            interface: InterfaceIndex(rawValue: rtnl_neigh_get_ifindex(object)), address: address,
            linkLayerAddress: bytes(of: rtnl_neigh_get_lladdr(object)).flatMap { LinkLayerAddress(bytes: $0) },
            state: NeighbourState(rawValue: UInt16(truncatingIfNeeded: rtnl_neigh_get_state(object))),
            isRouter: rtnl_neigh_get_flags(object) & UInt32(NTF_ROUTER) != 0)
        checksum &+= neighbour.hashValue
    case .link:
        guard let name = rtnl_link_get_name(object) else { return }
        let master = rtnl_link_get_master(object)
        let link = LinkFacts(
            index: InterfaceIndex(rawValue: rtnl_link_get_ifindex(object)), name: String(cString: name),
            flags: LinkFlags(rawValue: rtnl_link_get_flags(object)),
            operState: OperState(rawValue: rtnl_link_get_operstate(object)) ?? .unknown,
            hardwareType: HardwareType(rawValue: UInt16(truncatingIfNeeded: rtnl_link_get_arptype(object))),
            kind: rtnl_link_get_type(object).map { String(cString: $0) },
            master: master == 0 ? nil : InterfaceIndex(rawValue: master))
        checksum &+= link.name.utf8.count &+ Int(link.index.rawValue) &+ (link.kind?.utf8.count ?? 0)
    case .address:
        guard let address = bytes(of: rtnl_addr_get_local(object)).flatMap({ IPAddress(bytes: $0) }) else { return }
        let value = InterfaceAddress(
            interface: InterfaceIndex(rawValue: rtnl_addr_get_ifindex(object)), address: address,
            prefixLength: UInt8(truncatingIfNeeded: rtnl_addr_get_prefixlen(object)),
            flags: AddressFlags(rawValue: rtnl_addr_get_flags(object)),
            scope: AddressScope(rawValue: UInt8(truncatingIfNeeded: rtnl_addr_get_scope(object))))
        checksum &+= value.hashValue
    case .rule:
        guard let family = family(rtnl_rule_get_family(object)) else { return }
        let action: RoutingRule.Action = rtnl_rule_get_action(object) == UInt8(FR_ACT_TO_TBL)
            ? .lookup(table: rtnl_rule_get_table(object)) : .other(rtnl_rule_get_action(object))
        let rule = RoutingRule(family: family, priority: rtnl_rule_get_prio(object), action: action,
                               firewallMark: rtnl_rule_get_mark(object), firewallMask: rtnl_rule_get_mask(object),
                               hasOtherSelectors: rtnl_rule_get_iif(object) != nil || rtnl_rule_get_oif(object) != nil)
        checksum &+= rule.hashValue
    case .route:
        checksum &+= Int(rtnl_route_get_table(object)) &+ Int(rtnl_route_get_family(object))
    }
}

/// pathd's decoder for the kind; a route message is only type-checked ("Never mirror the
/// routing table").
func pathdDecode(_ header: UnsafeMutablePointer<nlmsghdr>, kind: Kind, readAt: MonotonicInstant) {
    switch kind {
    case .neighbour:
        if case .changed(let neighbour) = NeighbourDecoder.decode(header, readAt: readAt) {
            checksum &+= neighbour.hashValue
        }
    case .link:
        if case .changed(let link) = LinkDecoder.decode(header) {
            checksum &+= link.name.utf8.count &+ Int(link.index.rawValue) &+ (link.kind?.utf8.count ?? 0)
        }
    case .address:
        if case .changed(let address) = AddressDecoder.decode(header) { checksum &+= address.hashValue }
    case .rule:
        if case .added(let rule) = RuleDecoder.decode(header) { checksum &+= rule.hashValue }
    case .route:
        checksum &+= Int(header.pointee.nlmsg_type)
    }
}

/// libnl's own parser of the kind, where libnl-route-3 exports one (neighbours and routes).
func libnlDecode(_ header: UnsafeMutablePointer<nlmsghdr>, kind: Kind) -> Bool {
    var object: OpaquePointer?
    switch kind {
    case .neighbour:
        guard rtnl_neigh_parse(header, &object) == 0, let object else { fail("rtnl_neigh_parse") }
        consume(object, kind: kind)
        rtnl_neigh_put(object)
    case .route:
        guard rtnl_route_parse(header, &object) == 0, let object else { fail("rtnl_route_parse") }
        consume(object, kind: kind)
        rtnl_route_put(object)
    case .link, .address, .rule:
        return false  // no public per-message parser: nl_msg_parse only
    }
    return true
}

/// The generic parser (`nl_msg_parse`), which the caches and the cache manager run.
func libnlMessageDecode(_ header: UnsafeMutablePointer<nlmsghdr>, kind: Kind) {
    guard let message = nlmsg_convert(header) else { fail("nlmsg_convert") }
    nlmsg_set_proto(message, NETLINK_ROUTE)
    var kindIndex = Kind.allCases.firstIndex(of: kind)!
    let result = nl_msg_parse(message, { object, argument in
        guard let object, let argument else { return }
        consume(object, kind: Kind.allCases[argument.load(as: Int.self)])
    }, &kindIndex)
    guard result == 0 else { fail("nl_msg_parse: \(result)") }
    nlmsg_free(message)
}

enum Decoder: String, CaseIterable { case pathd, libnl, libnlMessage = "libnl-msg" }

/// One pass of `decoder` over `messages`; false when the decoder has no parser for the kind.
func pass(_ messages: [UnsafeMutablePointer<nlmsghdr>], kind: Kind, decoder: Decoder) -> Bool {
    let readAt = MonotonicInstant(sinceBoot: .nanoseconds(nanoseconds(CLOCK_MONOTONIC)))
    for header in messages {
        switch decoder {
        case .pathd: pathdDecode(header, kind: kind, readAt: readAt)
        case .libnl: if !libnlDecode(header, kind: kind) { return false }
        case .libnlMessage: libnlMessageDecode(header, kind: kind)
        }
    }
    return true
}

func time(_ capture: Capture, rounds: Int) {
    for kind in Kind.allCases {
        let messages = capture.messages[kind] ?? []
        guard !messages.isEmpty else { continue }
        for decoder in Decoder.allCases {
            var durations: [Int64] = []
            for _ in 0..<rounds {
                let start = cpuNanoseconds()
                guard pass(messages, kind: kind, decoder: decoder) else { break }
                durations.append(cpuNanoseconds() - start)
            }
            guard !durations.isEmpty else { continue }
            let median = durations.sorted()[durations.count / 2]
            let perMessage = Double(median) / Double(messages.count)
            print("time \(kind) \(decoder.rawValue) \(messages.count) \(String(format: perMessage))")
        }
    }
    print("checksum \(checksum)")
}

/// Bytes in use on the heap (brk arenas and mmapped chunks).
func heapInUse() -> Int {
    let info = mallinfo2()
    return Int(info.uordblks) + Int(info.hblkhd)
}

/// libnl's objects of every route and neighbour, kept in a cache of their kind as the
/// cache manager keeps them.
func cache(_ capture: Capture) {
    for (kind, name) in [(Kind.route, "route/route"), (Kind.neighbour, "route/neigh")] {
        let messages = capture.messages[kind] ?? []
        guard !messages.isEmpty else { continue }
        var cache: OpaquePointer?
        guard nl_cache_alloc_name(name, &cache) == 0, let cache else { fail("nl_cache_alloc_name(\(name))") }
        let before = heapInUse()
        let start = cpuNanoseconds()
        for header in messages {
            var object: OpaquePointer?
            let parsed = kind == .route ? rtnl_route_parse(header, &object) : rtnl_neigh_parse(header, &object)
            guard parsed == 0, let object else { fail("parse \(kind)") }
            // As a dump into a cache picks objects up (`pickup_cb`, lib/cache.c): one with the
            // same key as an object held replaces it.
            if let held = nl_cache_search(cache, object) {
                nl_cache_remove(held)
                nl_object_put(held)
            }
            let added = nl_cache_add(cache, object)
            guard added == 0 else { fail("nl_cache_add(\(name)): \(String(cString: nl_geterror(added)))") }
            nl_object_put(object)  // the cache holds its own reference
        }
        let elapsed = cpuNanoseconds() - start
        let perMessage = Double(heapInUse() - before) / Double(messages.count)
        print("cache \(kind) \(messages.count) \(nl_cache_nitems(cache)) \(String(format: perMessage)) \(elapsed)")
        nl_cache_free(cache)
    }
}

extension String {
    init(format value: Double) {
        let rounded = (value * 10).rounded() / 10
        self = "\(rounded)"
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fail("usage: pathd-decode-bench capture|time|parse|cache FILE …")
}
switch arguments[1] {
case "capture":
    capture(to: arguments[2])
case "time":
    time(Capture(path: arguments[2]), rounds: arguments.count > 3 ? Int(arguments[3]) ?? 21 : 21)
case "parse":
    guard arguments.count == 6, let kind = Kind(rawValue: arguments[3]), let decoder = Decoder(rawValue: arguments[4]),
          let rounds = Int(arguments[5]) else { fail("usage: pathd-decode-bench parse FILE KIND DECODER ROUNDS") }
    let capture = Capture(path: arguments[2])
    for _ in 0..<rounds where !pass(capture.messages[kind] ?? [], kind: kind, decoder: decoder) {
        fail("\(decoder.rawValue) has no parser for \(kind)")
    }
    print("checksum \(checksum)")
case "cache":
    cache(Capture(path: arguments[2]))
default:
    fail("unknown command \(arguments[1])")
}
