// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// What every filter over rtnetlink messages needs (`RouteFilter`, `NeighbourFilter`):
/// host-order fields read by a machine that loads big-endian, and the unrolled walk to
/// one attribute. Each load follows a length check: a load past the datagram's end makes
/// the kernel drop it.
extension ClassicBPF {
    /// The verdict that keeps the whole datagram (the return value is a byte count).
    static let accept = UInt32.max
    static let drop: UInt32 = 0

    static let headerSize = MemoryLayout<nlmsghdr>.size
    static let lengthOffset = MemoryLayout<nlmsghdr>.offset(of: \.nlmsg_len)!
    static let typeOffset = MemoryLayout<nlmsghdr>.offset(of: \.nlmsg_type)!
    static let attributeHeaderSize = MemoryLayout<rtattr>.size
    private static let isLittleEndian = UInt16(1).littleEndian == 1

    /// The scratch words the walk uses: which of the 16 is up to the filter.
    struct WalkSlots {
        /// Offset of the attribute being looked at.
        var offset: Int
        /// Bytes left in the message from `offset`.
        var remaining: Int
        var scratch: Int
        /// `rta_len` of the attribute at `offset`.
        var attributeLength: Int
    }

    /// A host-order u16 as a big-endian 16-bit load of its bytes reads it, for
    /// comparing and masking fields without putting their bytes together.
    static func hostUInt16<Value: BinaryInteger>(_ value: Value) -> UInt32 {
        UInt32(UInt16(truncatingIfNeeded: value).bigEndian)
    }

    /// A host-order 32-bit field (`ndm_ifindex`) as a big-endian 32-bit load of its
    /// bytes reads it, for an equality test.
    static func hostUInt32<Value: BinaryInteger>(_ value: Value) -> UInt32 {
        UInt32(truncatingIfNeeded: value).bigEndian
    }

    /// A = the host-order u32 at `offset` (nlmsg_len): classic BPF loads big-endian, so
    /// the bytes are put together most significant first. Uses X and M[`scratch`].
    mutating func loadHostUInt32(at offset: Int, scratch: Int) {
        let order = Self.isLittleEndian ? [3, 2, 1, 0] : [0, 1, 2, 3]
        load(BPF_B, at: offset + order[0])
        for byte in order.dropFirst() {
            alu(BPF_LSH, 8)
            store(memory: scratch)
            load(BPF_B, at: offset + byte)
            loadX(memory: scratch)
            aluX(BPF_OR)
        }
    }

    /// A = the host-order u16 at X + `offset` (rta_len). Leaves X changed. Uses M[`scratch`].
    mutating func loadHostUInt16(atX offset: Int, scratch: Int) {
        let (high, low) = Self.isLittleEndian ? (1, 0) : (0, 1)
        load(BPF_B, atX: offset + high)
        alu(BPF_LSH, 8)
        store(memory: scratch)
        load(BPF_B, atX: offset + low)
        loadX(memory: scratch)
        aluX(BPF_OR)
    }

    /// Passes the datagram unless it is one whole message: a notification is one message
    /// per datagram (docs/KERNEL.md, "Why one verdict per datagram is exact"), and
    /// what is not is the decoders' to judge. Uses X and M[`scratch`].
    mutating func passUnlessOneMessage(scratch: Int) {
        let pass = makeLabel()
        let whole = makeLabel()
        loadHostUInt32(at: Self.lengthOffset, scratch: scratch)
        loadLengthIntoX()
        jumpX(if: BPF_JEQ, to: whole, else: pass)
        place(pass)
        `return`(Self.accept)
        place(whole)
    }

    /// A part per address family, `part(&program, family)`, each reached by the family
    /// byte at `familyOffset` (IPv4's, else IPv6's): the parts can be longer than a
    /// conditional jump reaches, so the jump to the second is unconditional.
    mutating func branchOnFamily(at familyOffset: Int, _ part: (inout ClassicBPF, AddressFamily) -> Void) {
        let ipv4 = makeLabel()
        let ipv6 = makeLabel()
        load(BPF_B, at: familyOffset)
        jump(if: BPF_JEQ, UInt32(AddressFamily.ipv4.linuxValue), to: ipv4, else: nil)
        jump(to: ipv6)
        for (family, label) in [(AddressFamily.ipv4, ipv4), (.ipv6, ipv6)] {
            place(label)
            part(&self, family)
        }
    }

    /// `limit` unrolled steps over the attributes starting at `start`; each passes a
    /// malformed message, jumps to `found` at the first attribute of `type` (with
    /// M[offset] its offset and M[attributeLength] its `rta_len`), or moves to the next
    /// attribute. Past the last step, pass: classic BPF has no backward jumps.
    mutating func findAttribute(_ type: UInt16, attributesAt start: Int, limit: Int, slots: WalkSlots,
                                found: Label) {
        loadConstant(UInt32(start))
        store(memory: slots.offset)
        // The kernel refuses a program that may read a scratch word before writing it
        // (`check_load_and_stores`, net/core/filter.c), and its check carries what was
        // written past a return into the next instruction. Writing every word the walk
        // uses once, here, satisfies it on every path.
        for slot in [slots.remaining, slots.scratch, slots.attributeLength] { store(memory: slot) }
        for _ in 0..<limit {
            let pass = makeLabel()
            let isWanted = makeLabel()
            let next = makeLabel()
            // Room for an attribute header: length > offset and length - offset >= 4.
            loadX(memory: slots.offset)
            loadLength()
            jumpX(if: BPF_JGT, to: nil, else: pass)
            aluX(BPF_SUB)
            jump(if: BPF_JGE, UInt32(Self.attributeHeaderSize), to: nil, else: pass)
            store(memory: slots.remaining)
            // rta_len, host order; as nla_ok: at least a header, at most what is left.
            loadHostUInt16(atX: MemoryLayout<rtattr>.offset(of: \.rta_len)!, scratch: slots.scratch)
            jump(if: BPF_JGE, UInt32(Self.attributeHeaderSize), to: nil, else: pass)
            loadX(memory: slots.remaining)
            jumpX(if: BPF_JGT, to: pass, else: nil)
            store(memory: slots.attributeLength)
            // rta_type without the NLA_F_NESTED / NLA_F_NET_BYTEORDER bits, as nla_type().
            loadX(memory: slots.offset)
            load(BPF_H, atX: MemoryLayout<rtattr>.offset(of: \.rta_type)!)
            alu(BPF_AND, Self.hostUInt16(~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)))
            jump(if: BPF_JEQ, Self.hostUInt16(type), to: isWanted, else: nil)
            // Next attribute: offset += RTA_ALIGN(rta_len).
            load(memory: slots.attributeLength)
            alu(BPF_ADD, 3)
            alu(BPF_AND, ~UInt32(3))
            aluX(BPF_ADD)
            store(memory: slots.offset)
            jump(to: next)
            place(pass)
            `return`(Self.accept)
            place(isWanted)
            jump(to: found)
            place(next)
        }
        `return`(Self.accept)
    }
}
