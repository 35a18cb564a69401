// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// One request line as a client sends it. Whatever parses must encode to a line that
/// parses back to the same request (the client library and pathctl rely on `encoded()`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = UnsafeBufferPointer(start: data, count: size)
    // A rejected line is a fine outcome for a fuzzer; only a crash or a failed round trip is a finding.
    guard let request = try? Request.parse(line: line) else { return 0 }
    let encoded = request.encoded()
    guard encoded.last == UInt8(ascii: "\n") else { fatalError("encoded request without a newline") }
    let again: Request
    do {
        again = try Request.parse(line: encoded.dropLast())
    } catch {
        fatalError("re-parse of \(String(decoding: encoded, as: UTF8.self)) failed: \(error)")
    }
    if again != request {
        fatalError("round trip changed \(request) into \(again)")
    }
    return 0
}
