// SPDX-License-Identifier: Apache-2.0
import Dispatch

extension DispatchQueue {
    /// `sync` for work that returns a value, through the non-generic
    /// `sync(execute: () -> Void)`. Dispatch's own `sync<T>` is compiled once, in
    /// libswiftDispatch, for every `T`: each call asks the Swift runtime for the metadata
    /// of `T?` (a look-up in the runtime's shared table). The reader thread makes two such
    /// calls for every change the kernel reports, cold after the idle time between
    /// changes, before the change's line (docs/PERFORMANCE.md, "Network identity,
    /// measured"); inlined here, `T` is known where it is called and nothing is asked.
    @inlinable
    public func syncReturning<T>(_ work: () -> T) -> T {
        var result: T?
        sync { result = work() }
        // `sync` returns after running the block: the result is always there.
        return result!
    }
}
