// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A failure of a test harness (a child process, a command, a namespace), with everything
/// needed to diagnose it in the message.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// The failed C call with its errno, as strerror(3) spells it.
    public static func posix(_ call: String, errno code: Int32) -> HarnessError {
        HarnessError("\(call): \(String(cString: strerror(code))) (errno \(code))")
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs that take a `Date` or `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
