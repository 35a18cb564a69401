// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// Any bytes through the JSON parser; a value that parses, written back by JSONWriter,
/// must parse to the same value (the daemon echoes request ids with the writer). The
/// same bytes also go through the client's decoder of daemon lines.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Rejecting the input is a fine outcome for a fuzzer; only a crash is a finding.
    _ = try? ServerMessage.decode(line: bytes)
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    var writer = JSONWriter()
    writer.beginObject()
    writer.member("v", value)
    writer.endObject()
    let written = writer.bytes
    let again: JSONValue
    do {
        again = try JSONParser.parse(written)
    } catch {
        fatalError("writer produced invalid JSON \(String(decoding: written, as: UTF8.self)): \(error)")
    }
    if again["v"] != value {
        fatalError("round trip changed \(value) into \(String(describing: again["v"]))")
    }
    return 0
}
