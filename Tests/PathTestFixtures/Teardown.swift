// SPDX-License-Identifier: Apache-2.0
import Testing

/// One step of tearing a test down, in `defer` or after the body: a failure is recorded
/// as an issue, not thrown, so the steps after it still run and an error the body threw
/// is the one the test reports.
public func teardown(_ step: String, _ body: () throws -> Void) {
    do {
        try body()
    } catch {
        Issue.record("teardown: \(step): \(error)")
    }
}
