// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathProtocol
import Testing

@Suite("EncodedPathLine")
struct EncodedPathLineTests {
    /// The golden path lines (GoldenMessageTests pins them as messages) are the shared
    /// line, with and without an empty id.
    @Test(arguments: [Fixture.satisfied, Fixture.unsatisfied])
    func sharedLineIsTheMessage(update: PathUpdate) {
        let line = EncodedPathLine(update).line
        #expect(EncodedPathLine(update).line(id: nil) == line)
        #expect(ServerMessage.path(update, id: nil).encoded() == line)
    }

    @Test(arguments: [Fixture.satisfied, Fixture.unsatisfied, Fixture.requiresConnection])
    func lineIsOneNewlineTerminatedObject(update: PathUpdate) throws {
        let line = EncodedPathLine(update).line
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let members = try Fixture.object(line)
        #expect(members["type"] == .string("path"))
        #expect(members["status"] == .string(update.path.status.rawValue))
        #expect(members["generation"] == .integer(Int64(update.generation.rawValue)))
        #expect(members["sequence"] == .integer(Int64(update.sequence)))
        // `reason` is the readable summary, for unsatisfied paths only.
        if update.path.status == .unsatisfied {
            #expect(members["reason"] == .string(update.path.summary))
        } else {
            #expect(members["reason"] == .null)
        }
    }

    @Test(arguments: [
        JSONValue.string("sub-1"), .string("quote\" and \\ and\nnewline"), .string("é😀"),
        .integer(0), .integer(-42), .integer(Int64.max), .double(1.5), .null,
    ])
    func splicingAnIdKeepsEveryOtherField(id: JSONValue) throws {
        for update in [Fixture.satisfied, Fixture.unsatisfied] {
            let encoded = EncodedPathLine(update)
            let tagged = encoded.line(id: id)
            #expect(tagged.last == UInt8(ascii: "\n"))
            #expect(tagged.filter { $0 == UInt8(ascii: "\n") }.count == 1)
            var members = try Fixture.object(tagged)
            #expect(members["id"] == id)
            members["id"] = nil
            #expect(members == (try Fixture.object(encoded.line)))
            // The untagged line is unchanged by splicing.
            #expect(encoded.line == EncodedPathLine(update).line)
        }
    }

    @Test func splicedIdComesLast() {
        let tagged = EncodedPathLine(Fixture.unsatisfied).line(id: .integer(9))
        #expect(String(decoding: tagged, as: UTF8.self)
            .hasSuffix(#""connectivity":{"state":"unknown"},"id":9}"# + "\n"))
    }
}
