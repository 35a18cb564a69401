// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import Testing

/// The kernel tests: the real pathd in network namespaces, changed with `ip` and watched through its socket.
/// Each suite below is `.serialized` (one daemon and one topology of its own at a time);
/// the suites run beside each other, in namespaces of their own, on the lanes of
/// `.blocking(.systems)` (PathTestFixtures/BlockingTest.swift).
@Suite(
    "Kernel (network namespaces, real pathd)",
    .enabled(if: namespaceSupport.isAvailable, "needs root and ip netns: \(namespaceSupport.reason)"),
    .blocking(.systems)
)
enum KernelTests {}
