// SPDX-License-Identifier: Apache-2.0
import CLinux

/// Runs a classic BPF program over one datagram as the kernel does for a socket
/// filter (net/core/filter.c: `bpf_check_classic` at attach, then the program): A and X
/// start at 0, loads are big-endian, a load past the end of the data ends the program
/// with 0 (drop), and so does a division by zero. Only what socket filters may use
/// is here; anything else is reported, so a program the kernel would refuse fails a
/// test instead of passing one.
struct ClassicBPFInterpreter {
    struct Rejected: Error, CustomStringConvertible {
        var description: String
    }

    let program: [sock_filter]

    /// Checks the program as `bpf_check_classic` does before the kernel takes it: known
    /// opcodes, jumps inside the program, constant shifts and divisors in range, a
    /// return last, and no scratch word read before it is written on every path
    /// (`check_load_and_stores`).
    init(_ program: [sock_filter]) throws(Rejected) {
        guard !program.isEmpty, program.count <= Int(BPF_MAXINSNS) else {
            throw Rejected(description: "\(program.count) instructions")
        }
        guard Int32(program.last!.code) & 0x07
            == BPF_RET else { throw Rejected(description: "does not end with a return") }
        var masks = [UInt16](repeating: 0xFFFF, count: program.count)
        var written: UInt16 = 0
        for (pc, instruction) in program.enumerated() {
            let code = Int32(instruction.code)
            let k = instruction.k
            written &= masks[pc]
            switch code & 0x07 {
            case BPF_LD, BPF_LDX:
                let mode = code & 0xE0
                if mode == BPF_MEM {
                    guard k < 16, written & (1 << k) != 0 else {
                        throw Rejected(description: "instruction \(pc) reads M[\(k)] before it is written")
                    }
                }
                guard [BPF_IMM, BPF_ABS, BPF_IND, BPF_MEM, BPF_LEN, BPF_MSH].contains(mode) else {
                    throw Rejected(description: "instruction \(pc): load mode \(mode)")
                }
            case BPF_ST, BPF_STX:
                guard k < 16 else { throw Rejected(description: "instruction \(pc) writes M[\(k)]") }
                written |= 1 << k
            case BPF_ALU:
                let operation = code & 0xF0
                if code & 0x08 == BPF_K {
                    if (operation == BPF_DIV || operation == BPF_MOD) && k == 0 {
                        throw Rejected(description: "instruction \(pc) divides by 0")
                    }
                    if (operation == BPF_LSH || operation == BPF_RSH) && k >= 32 {
                        throw Rejected(description: "instruction \(pc) shifts by \(k)")
                    }
                }
            case BPF_JMP:
                let targets = code & 0xF0 == BPF_JA
                    ? [pc + 1 + Int(k)]
                    : [pc + 1 + Int(instruction.jt), pc + 1 + Int(instruction.jf)]
                for target in targets {
                    guard target < program.count else { throw Rejected(description: "instruction \(pc) jumps out") }
                    masks[target] &= written
                }
                written = 0xFFFF
            case BPF_RET, BPF_MISC:
                break
            default:
                throw Rejected(description: "instruction \(pc): class \(code & 0x07)")
            }
        }
        self.program = program
    }

    /// The verdict for `packet`: 0 drops it, anything else keeps that many bytes.
    func run(_ packet: [UInt8]) -> UInt32 {
        var a: UInt32 = 0
        var x: UInt32 = 0
        var memory = [UInt32](repeating: 0, count: 16)
        var pc = 0
        func load(_ offset: UInt32, size: Int32) -> UInt32? {
            let count = size == BPF_W ? 4 : size == BPF_H ? 2 : 1
            let start = Int(offset)
            guard start >= 0, start + count <= packet.count else { return nil }
            return packet[start..<start + count].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        while pc < program.count {
            let instruction = program[pc]
            let code = Int32(instruction.code)
            let k = instruction.k
            pc += 1
            switch code & 0x07 {
            case BPF_LD:
                switch code & 0xE0 {
                case BPF_IMM: a = k
                case BPF_LEN: a = UInt32(packet.count)
                case BPF_MEM: a = memory[Int(k)]
                case BPF_ABS, BPF_IND:
                    let offset = code & 0xE0 == BPF_IND ? x &+ k : k
                    guard let value = load(offset, size: code & 0x18) else { return 0 }
                    a = value
                default: return 0
                }
            case BPF_LDX:
                switch code & 0xE0 {
                case BPF_IMM: x = k
                case BPF_LEN: x = UInt32(packet.count)
                case BPF_MEM: x = memory[Int(k)]
                case BPF_MSH:
                    guard let value = load(k, size: BPF_B) else { return 0 }
                    x = 4 * (value & 0x0F)
                default: return 0
                }
            case BPF_ST: memory[Int(k)] = a
            case BPF_STX: memory[Int(k)] = x
            case BPF_ALU:
                let operand = code & 0x08 == BPF_X ? x : k
                switch code & 0xF0 {
                case BPF_ADD: a = a &+ operand
                case BPF_SUB: a = a &- operand
                case BPF_MUL: a = a &* operand
                case BPF_DIV:
                    guard operand != 0 else { return 0 }
                    a /= operand
                case BPF_MOD:
                    guard operand != 0 else { return 0 }
                    a %= operand
                case BPF_OR: a |= operand
                case BPF_AND: a &= operand
                case BPF_XOR: a ^= operand
                // The kernel runs classic BPF as eBPF, whose 32-bit shifts take the
                // count modulo 32.
                case BPF_LSH: a = a << (operand & 31)
                case BPF_RSH: a = a >> (operand & 31)
                case BPF_NEG: a = 0 &- a
                default: return 0
                }
            case BPF_JMP:
                let operand = code & 0x08 == BPF_X ? x : k
                let taken: Bool
                switch code & 0xF0 {
                case BPF_JA:
                    pc += Int(k)
                    continue
                case BPF_JEQ: taken = a == operand
                case BPF_JGT: taken = a > operand
                case BPF_JGE: taken = a >= operand
                case BPF_JSET: taken = a & operand != 0
                default: return 0
                }
                pc += Int(taken ? instruction.jt : instruction.jf)
            case BPF_RET:
                return code & 0x18 == 0x10 ? a : k  // BPF_A = 0x10, BPF_K = 0
            case BPF_MISC:
                if code & 0xF8 == BPF_TAX { x = a } else { a = x }
            default:
                return 0
            }
        }
        return 0
    }
}
