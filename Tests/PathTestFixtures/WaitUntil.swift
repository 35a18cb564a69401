// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Waits for a condition read from outside (the kernel's own state, a socket that starts
/// accepting), polling with a deadline that fails the test. Not for ordering events the
/// daemon reports: wait for those lines themselves. `detail` is added to the timeout's
/// message, read when the deadline passes.
public func waitUntil(_ description: String, timeout: Duration = .seconds(10),
                      detail: () throws -> String = { "" }, _ condition: () throws -> Bool) throws {
    try BlockingTest.requireOwnThread("waiting until \(description)")
    let deadline = Date().addingTimeInterval(timeout.timeInterval)
    while try !condition() {
        guard Date() < deadline else {
            throw HarnessError("timed out after \(timeout) waiting until \(description)\(try detail())")
        }
        // A poll interval, not an ordering sleep: the deadline above is what fails the test.
        usleep(20_000)
    }
}
