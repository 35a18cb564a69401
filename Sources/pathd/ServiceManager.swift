// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Dispatch
import SystemCalls

/// What pathd tells systemd (sd_notify(3)) and how it finds out it runs under it.
/// Outside systemd (no `NOTIFY_SOCKET`) every notification is a no-op.
enum ServiceManager {
    /// READY=1 with the first path as the status line.
    static func ready(status: String) {
        notify("READY=1\nSTATUS=\(status)")
    }

    /// The status line `systemctl status pathd` shows.
    static func status(_ text: String) {
        notify("STATUS=\(text)")
    }

    /// Before a reload: RELOADING=1 with the time it began (systemd 253's
    /// `Type=notify-reload` wants MONOTONIC_USEC; older ones ignore it). READY=1 follows.
    static func reloading() {
        let microseconds = SystemClock.monotonicNanoseconds / 1000
        notify("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
    }

    static func reloaded() {
        notify("READY=1")
    }

    static func stopping() {
        notify("STOPPING=1")
    }

    /// The watchdog interval systemd asks for (`WatchdogSec=`, passed as WATCHDOG_USEC
    /// and WATCHDOG_PID), or nil when none: then pathd never wakes for it.
    static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// Sends WATCHDOG=1 every half interval from `queue`, the state queue: a daemon
    /// whose state queue is stuck stops petting, and systemd restarts it.
    static func startWatchdog(every interval: Duration, on queue: DispatchQueue, scheduler: any Scheduler) {
        notify("WATCHDOG=1")
        scheduler.schedule(after: interval / 2, on: queue) {
            startWatchdog(every: interval, on: queue, scheduler: scheduler)
        }
    }

    private static func notify(_ state: String) {
        // Fails only when NOTIFY_SOCKET is set but unusable; nothing to do then but go on.
        _ = pathd_sd_notify(state)
    }
}
