// SPDX-License-Identifier: Apache-2.0
import Testing

/// The load and abuse tests (docs/ARCHITECTURE.md, "Slow clients" and "Memory"), and
/// the hostile users' (a client run as nobody, which waits on a subprocess). Serialized,
/// and alone in this suite, because they measure the whole process (RSS, descriptors), and
/// each one is heavy.
@Suite("load and abuse", .serialized, .blocking)
enum LoadAndAbuse {}
