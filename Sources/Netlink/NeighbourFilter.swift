// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// The event socket filter's part for neighbour messages (RTM_NEWNEIGH, RTM_DELNEIGH of
/// RTNLGRP_NEIGH): only the entries of the current gateways reach pathd, so a host whose
/// neighbour table churns (a router's hundred thousand ARP entries, a bridge's FDB)
/// costs it nothing (docs/ARCHITECTURE.md, "Network identity"). `RouteFilter.program`
/// places this part after its own and sends neighbour messages here.
///
/// What it keeps: an IPv4 or IPv6 entry whose `ndm_ifindex` and `NDA_DST` are one of the
/// gateways; with more gateways than `maximumGateways`, every IPv4 or IPv6 entry of a
/// link that has a gateway; with more such links than that, every IPv4 or IPv6 entry.
/// What it drops: other families (the bridge's FDB, AF_BRIDGE) and other entries. What it
/// cannot read with certainty (not one whole message, a short header, `NDA_DST` past
/// `attributeLimit` attributes or of the wrong size), it passes, for the decoder to judge.
enum NeighbourFilter {
    /// Attributes looked through for NDA_DST; the kernel writes it first
    /// (`neigh_fill_info`, net/core/neighbour.c).
    static let attributeLimit = 4
    /// Gateways covered one by one at most: each costs 4 (IPv4) or 10 (IPv6)
    /// instructions, so 64 IPv6 gateways add about 700 to the route part's at most
    /// 3,100, under BPF_MAXINSNS (4096). Past it the links are covered instead.
    static let maximumGateways = 64

    /// Scratch words: the walk's (shared with the route part, whose path never meets
    /// this one), the interface and the address.
    private enum Slot {
        static let walk = ClassicBPF.WalkSlots(offset: 0, remaining: 1, scratch: 2, attributeLength: 3)
        static let interface = 4
        static let address = 5
    }

    private static let familyOffset = ClassicBPF.headerSize + MemoryLayout<ndmsg>.offset(of: \.ndm_family)!
    private static let interfaceOffset = ClassicBPF.headerSize + MemoryLayout<ndmsg>.offset(of: \.ndm_ifindex)!
    /// NLMSG_ALIGN(sizeof(struct ndmsg)) after the header.
    private static let attributesOffset = ClassicBPF.headerSize + (MemoryLayout<ndmsg>.size + 3) & ~3

    /// How finely `gateways` can be covered.
    enum Coverage: Equatable {
        case gateways([Neighbour.Key])
        case interfaces([InterfaceIndex])
        case everyEntry
    }

    static func coverage(of gateways: Set<Neighbour.Key>) -> Coverage {
        if gateways.count <= maximumGateways { return .gateways(gateways.sorted()) }
        let interfaces = Set(gateways.map(\.interface))
        return interfaces.count <= maximumGateways ? .interfaces(interfaces.sorted()) : .everyEntry
    }

    /// The part for neighbour messages, reached with the datagram at least a netlink
    /// header long and of type RTM_NEWNEIGH or RTM_DELNEIGH.
    static func emit(_ program: inout ClassicBPF, coverage: Coverage) {
        // Each verdict is returned where it is reached: a conditional jump reaches 255
        // instructions at most, and the gateways' part may be longer.
        program.passUnlessOneMessage(scratch: Slot.walk.scratch)
        let long = program.makeLabel()
        program.loadLength()
        program.jump(if: BPF_JGE, UInt32(attributesOffset), to: long, else: nil)
        program.return(ClassicBPF.accept)
        program.place(long)
        let isIP = program.makeLabel()
        program.load(BPF_B, at: familyOffset)
        program.jump(if: BPF_JEQ, UInt32(AddressFamily.ipv4.linuxValue), to: isIP, else: nil)
        program.jump(if: BPF_JEQ, UInt32(AddressFamily.ipv6.linuxValue), to: isIP, else: nil)
        program.return(ClassicBPF.drop)
        program.place(isIP)
        switch coverage {
        case .everyEntry:
            program.return(ClassicBPF.accept)
        case .interfaces(let interfaces):
            program.load(BPF_W, at: interfaceOffset)
            for index in interfaces {
                let other = program.makeLabel()
                program.jump(if: BPF_JEQ, ClassicBPF.hostUInt32(index.rawValue), to: nil, else: other)
                program.return(ClassicBPF.accept)
                program.place(other)
            }
            program.return(ClassicBPF.drop)
        case .gateways(let gateways) where gateways.isEmpty:
            program.return(ClassicBPF.drop)
        case .gateways(let gateways):
            emitGateways(&program, gateways)
        }
    }

    /// With an IPv4 or IPv6 entry: finds NDA_DST, then accepts when the entry's link and
    /// address are one of `gateways`, drops otherwise.
    private static func emitGateways(_ program: inout ClassicBPF, _ gateways: [Neighbour.Key]) {
        program.load(BPF_W, at: interfaceOffset)
        program.store(memory: Slot.interface)
        let found = program.makeLabel()
        program.findAttribute(UInt16(NDA_DST), attributesAt: attributesOffset, limit: attributeLimit,
                              slots: Slot.walk, found: found)
        program.place(found)
        program.branchOnFamily(at: familyOffset) { program, family in
            emitFamily(&program, family: family, gateways: gateways.filter { $0.address.family == family })
        }
    }

    /// With M[offset] at NDA_DST of a `family` entry: its words into scratch memory,
    /// then per gateway, its link and each word compared.
    private static func emitFamily(_ program: inout ClassicBPF, family: AddressFamily, gateways: [Neighbour.Key]) {
        let wordCount = family == .ipv4 ? 1 : 4
        let isAddress = program.makeLabel()
        program.load(memory: Slot.walk.attributeLength)
        program.jump(if: BPF_JEQ, UInt32(ClassicBPF.attributeHeaderSize + 4 * wordCount), to: isAddress, else: nil)
        program.return(ClassicBPF.accept)
        program.place(isAddress)
        program.loadX(memory: Slot.walk.offset)
        for index in 0..<wordCount {
            program.load(BPF_W, atX: ClassicBPF.attributeHeaderSize + 4 * index)
            program.store(memory: Slot.address + index)
        }
        for gateway in gateways {
            let differs = program.makeLabel()
            program.load(memory: Slot.interface)
            program.jump(if: BPF_JEQ, ClassicBPF.hostUInt32(gateway.interface.rawValue), to: nil, else: differs)
            let bytes = gateway.address.bytes
            for index in 0..<wordCount {
                let word = bytes[4 * index..<4 * index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                program.load(memory: Slot.address + index)
                program.jump(if: BPF_JEQ, word, to: nil, else: differs)
            }
            program.return(ClassicBPF.accept)
            program.place(differs)
        }
        program.return(ClassicBPF.drop)
    }
}
