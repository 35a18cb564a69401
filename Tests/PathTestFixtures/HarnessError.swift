import Foundation

/// A failure of the kernel-test harness, with everything needed to diagnose it in the message.
struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// The failed C call with its errno, as strerror(3) spells it.
    static func posix(_ call: String, errno code: Int32) -> HarnessError {
        HarnessError("\(call): \(String(cString: strerror(code))) (errno \(code))")
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs that take a `Date` or `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
