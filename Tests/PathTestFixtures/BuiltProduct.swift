// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Locates the `pathd` and `pathctl` executables that `swift build` put beside the test bundle.
public enum BuiltProduct {
    public static func url(_ name: String) throws -> URL {
        let candidates = directories.map { $0.appendingPathComponent(name).standardizedFileURL }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw HarnessError("\(name) not built (run `swift build` first); looked in: "
            + candidates.map(\.path).joined(separator: ", "))
    }

    /// Where to look, best first: `PATHD_TEST_BINARIES` (a directory, to test other builds such as an
    /// installed release) when set; then, on Linux, `swift test` runs `.build/debug/<package>PackageTests.xctest`,
    /// an executable sitting next to the products; `Bundle.main` covers runners that load a bundle.
    private static var directories: [URL] {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let runner = URL(fileURLWithPath: CommandLine.arguments[0], relativeTo: cwd).deletingLastPathComponent()
        let bundle = Bundle.main.bundleURL
        let override = ProcessInfo.processInfo.environment["PATHD_TEST_BINARIES"].map {
            URL(fileURLWithPath: $0, isDirectory: true)
        }
        return [override].compactMap { $0 }
            + [runner, bundle, bundle.deletingLastPathComponent(),
               Repository.root.appendingPathComponent(".build/debug")]
    }
}
