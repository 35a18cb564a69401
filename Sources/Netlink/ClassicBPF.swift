// SPDX-License-Identifier: Apache-2.0
import CLinux

/// A classic BPF program under construction (`struct sock_filter`, linux/filter.h;
/// the instruction set of Documentation/networking/filter.rst), with jumps to named
/// labels. Classic BPF only jumps forward, and a conditional jump at most 255
/// instructions; `instructions()` resolves the labels and enforces both, so a program
/// that would not load is caught where it is generated.
///
/// The opcodes of `<linux/bpf_common.h>` arrive as `Int32` macros; the helpers below
/// take them as they are (`BPF_B`, `BPF_JEQ`, `BPF_ADD`…).
struct ClassicBPF {
    /// A position in the program: made by `makeLabel()`, fixed by `place(_:)`.
    struct Label: Hashable {
        fileprivate let id: Int
    }

    private enum Item {
        case statement(code: Int32, k: UInt32)
        /// A conditional jump; a nil target is the next instruction.
        case conditional(code: Int32, k: UInt32, ifTrue: Label?, ifFalse: Label?)
        case always(Label)
        case place(Label)
    }

    private var items: [Item] = []
    private var labelCount = 0

    mutating func makeLabel() -> Label {
        labelCount += 1
        return Label(id: labelCount)
    }

    /// The next instruction emitted is where `label` jumps to.
    mutating func place(_ label: Label) {
        items.append(.place(label))
    }

    // MARK: Loads and stores

    /// A = the datagram's length.
    mutating func loadLength() { emit(BPF_LD | BPF_W | BPF_LEN) }

    /// X = the datagram's length.
    mutating func loadLengthIntoX() { emit(BPF_LDX | BPF_W | BPF_LEN) }

    /// A = the `size` (BPF_B, BPF_H, BPF_W) bytes at `offset`, read big-endian.
    mutating func load(_ size: Int32, at offset: Int) { emit(BPF_LD | size | BPF_ABS, UInt32(offset)) }

    /// A = the `size` bytes at X + `offset`, read big-endian.
    mutating func load(_ size: Int32, atX offset: Int) { emit(BPF_LD | size | BPF_IND, UInt32(offset)) }

    /// A = `value`.
    mutating func loadConstant(_ value: UInt32) { emit(BPF_LD | BPF_IMM, value) }

    /// A = M[`slot`].
    mutating func load(memory slot: Int) { emit(BPF_LD | BPF_MEM, UInt32(slot)) }

    /// X = M[`slot`].
    mutating func loadX(memory slot: Int) { emit(BPF_LDX | BPF_MEM, UInt32(slot)) }

    /// M[`slot`] = A.
    mutating func store(memory slot: Int) { emit(BPF_ST, UInt32(slot)) }

    /// X = A.
    mutating func copyAToX() { emit(BPF_MISC | BPF_TAX) }

    /// A = X.
    mutating func copyXToA() { emit(BPF_MISC | BPF_TXA) }

    // MARK: Arithmetic

    /// A = A `operation` `value` (BPF_ADD, BPF_AND, BPF_LSH…).
    mutating func alu(_ operation: Int32, _ value: UInt32) { emit(BPF_ALU | operation | BPF_K, value) }

    /// A = A `operation` X.
    mutating func aluX(_ operation: Int32) { emit(BPF_ALU | operation | BPF_X) }

    // MARK: Control

    /// If A `test` `value` (BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET) go to `ifTrue`, else to
    /// `ifFalse`; nil means the next instruction.
    mutating func jump(if test: Int32, _ value: UInt32, to ifTrue: Label?, else ifFalse: Label?) {
        items.append(.conditional(code: BPF_JMP | test | BPF_K, k: value, ifTrue: ifTrue, ifFalse: ifFalse))
    }

    /// If A `test` X go to `ifTrue`, else to `ifFalse`.
    mutating func jumpX(if test: Int32, to ifTrue: Label?, else ifFalse: Label?) {
        items.append(.conditional(code: BPF_JMP | test | BPF_X, k: 0, ifTrue: ifTrue, ifFalse: ifFalse))
    }

    mutating func jump(to label: Label) { items.append(.always(label)) }

    /// Ends the program with the verdict `value` (0 drops the datagram; otherwise the
    /// number of bytes to keep).
    mutating func `return`(_ value: UInt32) { emit(BPF_RET | BPF_K, value) }

    // MARK: Assembly

    /// The program as the kernel takes it. Traps on a label never placed, a backward
    /// or too long conditional jump, or a program longer than BPF_MAXINSNS: each is a
    /// bug in the generator, the same for every input.
    func instructions() -> [sock_filter] {
        var positions: [Label: Int] = [:]
        var count = 0
        for item in items {
            if case .place(let label) = item { positions[label] = count } else { count += 1 }
        }
        precondition(count <= Int(BPF_MAXINSNS), "classic BPF program of \(count) instructions")

        func distance(from index: Int, to label: Label?) -> Int {
            guard let label else { return 0 }
            guard let target = positions[label] else { preconditionFailure("label \(label.id) never placed") }
            let offset = target - index - 1
            precondition(offset >= 0, "backward jump to label \(label.id)")
            return offset
        }

        var program: [sock_filter] = []
        program.reserveCapacity(count)
        for item in items {
            let index = program.count
            switch item {
            case .place:
                continue
            case .statement(let code, let k):
                program.append(sock_filter(code: UInt16(code), jt: 0, jf: 0, k: k))
            case .conditional(let code, let k, let ifTrue, let ifFalse):
                let jt = distance(from: index, to: ifTrue)
                let jf = distance(from: index, to: ifFalse)
                precondition(jt <= 255 && jf <= 255, "conditional jump of \(max(jt, jf)) instructions")
                program.append(sock_filter(code: UInt16(code), jt: UInt8(jt), jf: UInt8(jf), k: k))
            case .always(let label):
                program.append(sock_filter(code: UInt16(BPF_JMP | BPF_JA), jt: 0, jf: 0,
                                           k: UInt32(distance(from: index, to: label))))
            }
        }
        return program
    }

    private mutating func emit(_ code: Int32, _ k: UInt32 = 0) {
        items.append(.statement(code: code, k: k))
    }
}
