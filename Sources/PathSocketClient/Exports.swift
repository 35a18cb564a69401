// SPDX-License-Identifier: Apache-2.0
// The clock that `DaemonSubscription` (and PathClient's monitors) take for their
// reconnect back-off, so that a program can pass its own without importing
// SystemCalls, which is no product of this package.
@_exported import protocol SystemCalls.Scheduler
@_exported import struct SystemCalls.DispatchScheduler
