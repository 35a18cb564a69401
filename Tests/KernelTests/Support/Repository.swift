import Foundation

/// The source tree the tests were built from: scripts, units and packaging files they use.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Support
        .deletingLastPathComponent() // KernelTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    static func read(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }
}
