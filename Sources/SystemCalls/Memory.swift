// SPDX-License-Identifier: Apache-2.0
import CSystemCalls

/// glibc's malloc, where the daemon's memory use depends on it: freed memory stays in
/// malloc's heap unless it is given back, and every thread that allocates may get an
/// arena of its own, so a peak reached on one Dispatch worker thread and then on
/// another is kept twice.
public enum Memory {
    /// Makes every thread allocate from one arena (mallopt(3) `M_ARENA_MAX`). For a
    /// process whose work runs on one serial queue, whichever thread runs it: memory
    /// freed by one burst is reused by the next. Call before threads start; false if
    /// glibc refused.
    @discardableResult
    public static func useOneArena() -> Bool {
        pathd_limit_malloc_arenas(1) != 0
    }

    /// Gives the heap's free pages back to the kernel (malloc_trim(3)); true when some
    /// were. It walks the heap: call it after memory was freed, not on every free.
    @discardableResult
    public static func returnFreePages() -> Bool {
        malloc_trim(0) != 0
    }
}
