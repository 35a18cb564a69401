// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import Testing

/// The kernel tests: the real pathd in network namespaces, changed with `ip` and watched through its socket.
/// Serialized so that at most one daemon and one pair of namespaces exist at a time.
@Suite(
    "Kernel (network namespaces, real pathd)",
    .serialized,
    .enabled(if: namespaceSupport.isAvailable, "needs root and ip netns: \(namespaceSupport.reason)")
)
enum KernelTests {}
