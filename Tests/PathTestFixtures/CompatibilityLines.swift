// SPDX-License-Identifier: Apache-2.0
import SystemCalls

extension Fixture {
    /// The lines of `Tests/PathProtocolTests/Golden/Compatibility/<name>` (without
    /// newlines): `future-v1.jsonl`, what a newer pathd of protocol 1 may send, and
    /// `oldest-v1.jsonl`, what the oldest one sent. Read from the source tree, so that
    /// every test target reads the one copy.
    public static func compatibilityLines(_ name: String) throws -> [String] {
        // …/Tests/PathTestFixtures/CompatibilityLines.swift → …/Tests
        let directory = #filePath.split(separator: "/",
                                        omittingEmptySubsequences: false).dropLast(2).joined(separator: "/")
        let path = directory + "/PathProtocolTests/Golden/Compatibility/" + name
        return try RegularFile.readText(path, maximumBytes: 1 << 20).get().split(separator: "\n").map(String.init)
    }

    /// The future lines by what they are (see `future-v1.jsonl`).
    public enum Future {
        public static let notice = 0, hello = 1, unknownReason = 2, unknownStatus = 3, error = 8, interfaces = 10,
                          history = 12
    }
}
