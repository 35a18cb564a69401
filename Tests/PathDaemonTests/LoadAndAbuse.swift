import Testing

/// The load and abuse tests of issue 4. Serialized, and alone in this suite, because
/// they measure the whole process (RSS, descriptors) and each one is heavy.
@Suite("load and abuse", .serialized)
enum LoadAndAbuse {}
