// SPDX-License-Identifier: Apache-2.0
import PathModel
import Synchronization

/// A clock that moves only when the test says so; both of its readings move together.
public final class ManualClock: TimeSource, Sendable {
    private let current: Mutex<Timestamp>

    public init(wall: Duration = .seconds(1_796_150_000), monotonic: Duration = .seconds(1000)) {
        current = Mutex(Timestamp(wall: wall, monotonic: monotonic))
    }

    public func now() -> Timestamp { current.withLock { $0 } }

    public func advance(by duration: Duration) {
        current.withLock {
            $0.wall += duration
            $0.monotonic += duration
        }
    }
}
