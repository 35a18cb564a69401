// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// The event socket's classic BPF filter (`SO_ATTACH_FILTER`): drops, in the kernel,
/// the route messages that cannot change an answer. docs/ARCHITECTURE.md ("Route
/// messages that cannot change an answer stay in the kernel") gives the rule and why a
/// verdict per datagram is exact. Whatever the program cannot read with certainty, it
/// passes, for the decoders to judge as before.
///
/// Classic BPF has no loops, so the search for RTA_DST is unrolled `attributeLimit`
/// times. The kernel's own search (`SKF_AD_NLATTR`) needs no bound, but it is a helper
/// outside the program; unrolled, every instruction that decides runs in the unit
/// tests' interpreter. A load past the datagram's end makes the kernel drop it, so
/// every load follows a length check.
enum RouteFilter {
    /// How many attributes are looked through for RTA_DST; a route whose RTA_DST comes
    /// later is passed. The kernel writes it second, after RTA_TABLE (`fib_dump_info`,
    /// net/ipv4/fib_semantics.c; `rt6_fill_node`, net/ipv6/route.c).
    static let attributeLimit = 8

    /// Routes with a prefix this short are passed without looking for RTA_DST: a /0
    /// covers every destination, a /1 half of them (VPN split routes), and a few such
    /// messages cost a batch of lookups each at most.
    static let passedPrefixLength: UInt8 = 1

    /// The verdicts (`ClassicBPF.accept`, `drop`).
    static let accept = ClassicBPF.accept
    static let drop = ClassicBPF.drop

    /// Scratch memory words (classic BPF has 16).
    private enum Slot {
        /// Offset of the attribute being looked at.
        static let offset = 0
        /// Bytes left in the message from `offset`.
        static let remaining = 1
        static let scratch = 2
        /// `rta_len` of the attribute at `offset`.
        static let attributeLength = 3
        /// rtm_dst_len, the prefix's length.
        static let prefixLength = 4
        /// RTA_DST, 32 bits each (network order), words 5 to 8.
        static let destination = 5
        /// The prefix's mask over each of those words, words 9 to 12.
        static let mask = 9
    }

    private static let headerSize = ClassicBPF.headerSize
    private static let typeOffset = ClassicBPF.typeOffset
    private static let familyOffset = headerSize + MemoryLayout<rtmsg>.offset(of: \.rtm_family)!
    private static let destinationLengthOffset = headerSize + MemoryLayout<rtmsg>.offset(of: \.rtm_dst_len)!
    private static let sourceLengthOffset = headerSize + MemoryLayout<rtmsg>.offset(of: \.rtm_src_len)!
    /// Where the attributes start: NLMSG_ALIGN(sizeof(struct rtmsg)) after the header.
    private static let attributesOffset = headerSize + (MemoryLayout<rtmsg>.size + 3) & ~3
    private static let attributeHeaderSize = ClassicBPF.attributeHeaderSize
    private static let walkSlots = ClassicBPF.WalkSlots(offset: Slot.offset, remaining: Slot.remaining,
                                                        scratch: Slot.scratch, attributeLength: Slot.attributeLength)

    /// How many watched destinations (`NetlinkMonitor.passRoutes`) the program covers
    /// one by one at most. Each costs 6 (IPv4) or 21 (IPv6) instructions after a
    /// per-family part computed once per message; 128 IPv6 ones make about 3,100
    /// instructions, under BPF_MAXINSNS (4096). Beyond, their networks are covered
    /// instead (`coveredPrefixes`): the program then passes more route messages than it
    /// must, never fewer. The kernel charges the program against `net.core.optmem_max`
    /// (128 KiB on recent kernels, 20 KiB on older ones, where a large program is refused
    /// and the monitor passes every route message instead).
    static let maximumWatchedDestinations = 128

    /// What the program covers of a family: an address (`length` its width), or the
    /// network of several (its first `length` bits). A route passes when its prefix and
    /// this one agree on the bits both have: for an address, exactly when the route
    /// covers it; for a network, also when the route lies inside it.
    struct CoveredPrefix: Hashable, Comparable {
        var address: IPAddress
        var length: Int

        /// `address` with the bits past the first `length` cleared.
        init(_ address: IPAddress, length: Int) {
            var bytes = address.bytes
            for index in bytes.indices {
                let kept = min(max(length - 8 * index, 0), 8)
                bytes[index] &= kept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
            }
            // As many bytes as the address had: always an address of its family.
            self.address = IPAddress(bytes: bytes) ?? address
            self.length = length
        }

        var isAddress: Bool { length == address.family.addressBits }

        static func < (left: CoveredPrefix, right: CoveredPrefix) -> Bool {
            left.address.bytes.lexicographicallyPrecedes(right.address.bytes)
                || (left.address == right.address && left.length < right.length)
        }
    }

    /// The prefix lengths a family's destinations are covered by, finest first: the
    /// addresses, then their /24 (/64) networks, and so on to everything.
    private static let aggregationLengths: [AddressFamily: [Int]] = [.ipv4: [32, 24, 16, 8, 0],
                                                                     .ipv6: [128, 64, 48, 32, 16, 0]]

    /// The watched destinations as the program covers them, at most
    /// `maximumWatchedDestinations` prefixes: each address while there are that few;
    /// else the family with more prefixes is covered by coarser networks, step by step,
    /// until they are few enough. In address order: the same set makes the same program.
    static func coveredPrefixes(_ watched: Set<IPAddress>) -> [CoveredPrefix] {
        var steps: [AddressFamily: Int] = [.ipv4: 0, .ipv6: 0]
        func prefixes(_ family: AddressFamily) -> Set<CoveredPrefix> {
            let length = aggregationLengths[family, default: [0]][steps[family, default: 0]]
            return Set(watched.filter { $0.family == family }.map { CoveredPrefix($0, length: length) })
        }
        var covered = (ipv4: prefixes(.ipv4), ipv6: prefixes(.ipv6))
        // The last lengths leave one prefix per family: the loop ends.
        while covered.ipv4.count + covered.ipv6.count > maximumWatchedDestinations {
            let family: AddressFamily = covered.ipv4.count >= covered.ipv6.count ? .ipv4 : .ipv6
            steps[family, default: 0] += 1
            if family == .ipv4 { covered.ipv4 = prefixes(.ipv4) } else { covered.ipv6 = prefixes(.ipv6) }
        }
        return covered.ipv4.union(covered.ipv6).sorted()
    }

    /// A program that keeps every datagram: what a socket without a filter reads.
    static let passEverything: [sock_filter] = {
        var program = ClassicBPF()
        program.return(accept)
        return program.instructions()
    }()

    /// The program for these lookup destinations (one per family) and the destinations
    /// of watched routes (`coveredPrefixes`): a route message covering any of them passes;
    /// and for the neighbour entries of `gateways` (`NeighbourFilter`).
    static func program(lookupDestinations: LookupDestinations, watching watched: Set<IPAddress> = [],
                        gateways: Set<Neighbour.Key> = []) -> [sock_filter] {
        program(lookupDestinations: lookupDestinations, covering: coveredPrefixes(watched),
                neighbours: NeighbourFilter.coverage(of: gateways))
    }

    static func program(lookupDestinations: LookupDestinations, covering prefixes: [CoveredPrefix],
                        neighbours: NeighbourFilter.Coverage = .gateways([])) -> [sock_filter] {
        var program = ClassicBPF()
        // Neighbour messages to their part, at the end (`NeighbourFilter`): a jump that
        // far is unconditional.
        let neighbourPart = program.makeLabel()
        let routePart = program.makeLabel()
        let isNeighbour = program.makeLabel()
        program.loadLength()
        program.jump(if: BPF_JGE, UInt32(headerSize), to: nil, else: routePart)
        program.load(BPF_H, at: typeOffset)
        program.jump(if: BPF_JEQ, ClassicBPF.hostUInt16(RTM_NEWNEIGH), to: isNeighbour, else: nil)
        program.jump(if: BPF_JEQ, ClassicBPF.hostUInt16(RTM_DELNEIGH), to: isNeighbour, else: routePart)
        program.place(isNeighbour)
        program.jump(to: neighbourPart)
        program.place(routePart)
        let found = program.makeLabel()
        emitHeaderChecks(&program)
        emitAttributeWalk(&program, found: found)
        program.place(found)
        // Reached with M[offset] = the offset of RTA_DST and M[attributeLength] = its rta_len.
        program.branchOnFamily(at: familyOffset) { program, family in
            let lookup = CoveredPrefix(lookupDestinations[family], length: family.addressBits)
            let others = prefixes.filter { $0.address.family == family && $0 != lookup }
            emitCoverage(&program, family: family, prefixes: [lookup] + others)
        }
        program.place(neighbourPart)
        NeighbourFilter.emit(&program, coverage: neighbours)
        return program.instructions()
    }

    /// Passes what is not a lone, complete route message of IPv4 or IPv6 with a prefix
    /// longer than 1 and no source prefix; falls through to the walk for the others.
    private static func emitHeaderChecks(_ program: inout ClassicBPF) {
        let pass = program.makeLabel()
        let route = program.makeLabel()
        program.loadLength()
        program.jump(if: BPF_JGE, UInt32(attributesOffset), to: nil, else: pass)
        program.load(BPF_H, at: typeOffset)
        program.jump(if: BPF_JEQ, ClassicBPF.hostUInt16(RTM_NEWROUTE), to: route, else: nil)
        program.jump(if: BPF_JEQ, ClassicBPF.hostUInt16(RTM_DELROUTE), to: route, else: pass)
        program.place(route)
        program.passUnlessOneMessage(scratch: Slot.scratch)
        program.load(BPF_B, at: destinationLengthOffset)
        program.jump(if: BPF_JGT, UInt32(passedPrefixLength), to: nil, else: pass)
        program.load(BPF_B, at: sourceLengthOffset)
        program.jump(if: BPF_JEQ, 0, to: nil, else: pass)

        let walk = program.makeLabel()
        for family in AddressFamily.allCases {
            let next = program.makeLabel()
            program.load(BPF_B, at: familyOffset)
            program.jump(if: BPF_JEQ, UInt32(family.linuxValue), to: nil, else: next)
            // A prefix longer than the address is malformed: the decoder's to judge.
            program.load(BPF_B, at: destinationLengthOffset)
            program.jump(if: BPF_JGT, UInt32(family.addressBits), to: pass, else: walk)
            program.place(next)
        }
        program.place(pass)
        program.return(accept)
        program.place(walk)
    }

    /// `attributeLimit` unrolled steps over the rtattrs (`ClassicBPF.findAttribute`):
    /// each passes a malformed message, jumps to `found` at RTA_DST, or moves to the next
    /// attribute. Past the last step, pass.
    private static func emitAttributeWalk(_ program: inout ClassicBPF, found: ClassicBPF.Label) {
        program.findAttribute(UInt16(RTA_DST.rawValue), attributesAt: attributesOffset, limit: attributeLimit,
                              slots: walkSlots, found: found)
    }

    /// With M[offset] = the offset of RTA_DST of a `family` route: accepts when its
    /// first rtm_dst_len bits agree with any of `prefixes` (on the bits both have), drops
    /// otherwise; passes an RTA_DST that is not one address. Once per message: RTA_DST's
    /// words and the route prefix's mask over each (all ones, the first rtm_dst_len % 32
    /// bits, or none) into scratch memory. Then per covered prefix, per word it has bits
    /// in: (RTA_DST XOR prefix) AND mask (AND the covered prefix's own mask, for a
    /// network) must be 0.
    private static func emitCoverage(_ program: inout ClassicBPF, family: AddressFamily,
                                     prefixes: [CoveredPrefix]) {
        let wordCount = family == .ipv4 ? 1 : 4
        let isAddress = program.makeLabel()
        program.load(memory: Slot.attributeLength)
        program.jump(if: BPF_JEQ, UInt32(attributeHeaderSize + 4 * wordCount), to: isAddress, else: nil)
        program.return(accept)
        program.place(isAddress)
        program.loadX(memory: Slot.offset)
        for index in 0..<wordCount {
            program.load(BPF_W, atX: attributeHeaderSize + 4 * index)
            program.store(memory: Slot.destination + index)
        }
        // rtm_dst_len is 2 to the address's width here (checked before the walk).
        program.load(BPF_B, at: destinationLengthOffset)
        program.store(memory: Slot.prefixLength)
        for index in 0..<wordCount {
            let (start, end) = (UInt32(32 * index), UInt32(32 * (index + 1)))
            let (whole, partial, none, stored) = (program.makeLabel(), program.makeLabel(), program.makeLabel(),
                                                  program.makeLabel())
            program.load(memory: Slot.prefixLength)
            program.jump(if: BPF_JGE, end, to: whole, else: nil)
            program.jump(if: BPF_JGT, start, to: partial, else: none)
            program.place(partial)
            // The prefix ends inside this word: its first (length - start) bits, that
            // is all ones shifted left by end - length (1 to 31).
            program.loadConstant(end)
            program.loadX(memory: Slot.prefixLength)
            program.aluX(BPF_SUB)
            program.copyAToX()
            program.loadConstant(UInt32.max)
            program.aluX(BPF_LSH)
            program.jump(to: stored)
            program.place(whole)
            program.loadConstant(UInt32.max)
            program.jump(to: stored)
            program.place(none)
            program.loadConstant(0)
            program.place(stored)
            program.store(memory: Slot.mask + index)
        }
        for prefix in prefixes {
            let differs = program.makeLabel()
            let bytes = prefix.address.bytes
            for index in 0..<wordCount {
                let bits = min(max(prefix.length - 32 * index, 0), 32)
                guard bits > 0 else { continue }  // the network says nothing of this word
                let word = bytes[4 * index..<4 * index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                program.loadX(memory: Slot.mask + index)
                program.load(memory: Slot.destination + index)
                program.alu(BPF_XOR, word)
                program.aluX(BPF_AND)
                if bits < 32 { program.alu(BPF_AND, UInt32.max << (32 - bits)) }
                program.jump(if: BPF_JEQ, 0, to: nil, else: differs)
            }
            program.return(accept)
            program.place(differs)
        }
        program.return(drop)
    }

}
