// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

@Suite("reload request and reloaded message")
struct ReloadMessageTests {
    @Test func requestParses() throws {
        let request = try Request.parse(line: Array(#"{"op":"reload","id":"r1"}"#.utf8))
        #expect(request.op == .reload)
        #expect(request.id == .string("r1"))
        #expect(String(decoding: request.encoded(), as: UTF8.self) == #"{"op":"reload","id":"r1"}"# + "\n")
    }

    @Test func reloadedEncodesAndDecodes() throws {
        let message = ServerMessage.reloaded(warnings: ["pathd.conf:3: unknown key \"X\"= in [Daemon]; ignored"],
                                             id: .integer(4))
        let line = message.encoded()
        #expect(String(decoding: line, as: UTF8.self)
            == #"{"type":"reloaded","warnings":["pathd.conf:3: unknown key \"X\"= in [Daemon]; ignored"],"id":4}"#
                + "\n")
        #expect(try ServerMessage.decode(line: line.dropLast()) == message)
        let empty = ServerMessage.reloaded(warnings: [], id: nil)
        #expect(String(decoding: empty.encoded(), as: UTF8.self) == #"{"type":"reloaded","warnings":[]}"# + "\n")
        #expect(try ServerMessage.decode(line: Array(#"{"type":"reloaded"}"#.utf8)) == empty)
    }

    @Test func configInvalidIsAnErrorCode() throws {
        let line = Array(#"{"type":"error","code":"configInvalid","message":"pathd.conf:1: x"}"#.utf8)
        #expect(try ServerMessage.decode(line: line)
                == .error(code: .configInvalid, message: "pathd.conf:1: x", id: nil))
    }
}
