// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What this process holds, as the kernel counts it: for tests that show a client
/// releases what it took (threads, descriptors), by comparing counts.
public enum ProcessCounts {
    /// The process's threads (the `Threads:` line of /proc/self/status).
    public static func threads() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
            if let count = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) {
                return count
            }
        }
        throw HarnessError("no Threads: line in /proc/self/status")
    }

    /// The process's open descriptors (the entries of /proc/self/fd).
    public static func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}
