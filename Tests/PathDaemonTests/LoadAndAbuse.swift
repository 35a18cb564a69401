// SPDX-License-Identifier: Apache-2.0
import Testing

/// The load and abuse tests (docs/ARCHITECTURE.md, "Slow clients" and "Memory"), and
/// the hostile users' (a client run as nobody, which waits on a subprocess). Serialized,
/// and alone in this suite, because they measure the whole process (RSS, descriptors),
/// each one is heavy, and a test that blocks holds one of the concurrency pool's threads.
@Suite("load and abuse", .serialized)
enum LoadAndAbuse {}
