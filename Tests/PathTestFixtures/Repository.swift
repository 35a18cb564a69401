// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The source tree the tests were built from: scripts, units and packaging files they use.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // PathTestFixtures
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    public static func read(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }
}
