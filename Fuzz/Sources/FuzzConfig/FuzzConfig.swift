// SPDX-License-Identifier: Apache-2.0
import PathConfiguration

/// Any bytes as a pathd.conf (the file is root's, but a drop-in may come from a
/// package, and a typo must give a diagnostic, never a crash or a hang).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let result = Configuration.parse([ConfigurationSource(name: "fuzz.conf", text: text)])
    _ = result.isValid
    return 0
}
