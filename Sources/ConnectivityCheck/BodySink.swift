// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Where a fetched body goes as it arrives: hashed, counted, and kept only as far as a
/// comparison with `ExpectedContent=` needs. It takes bytes up to
/// `FetchResult.maximumBodyBytes` exactly and refuses the first byte past them, so a body
/// cut off at the limit is reported with exactly that many bytes and their SHA-256.
///
/// Used by the one thread running the transfer (not `Sendable`).
public final class BodySink {
    private var hasher = SHA256()
    private let keep: Int
    public private(set) var prefix: [UInt8] = []
    public private(set) var count: Int64 = 0
    /// A byte past the limit arrived: the body is longer than `FetchResult.maximumBodyBytes`.
    public private(set) var isTruncated = false

    /// `keep`: how many leading bytes to keep for a byte-for-byte comparison.
    public init(keep: Int) {
        self.keep = keep
    }

    /// Takes a piece of the body, up to the limit; false when some of it lay past the
    /// limit, which ends the transfer.
    public func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let room = Int(FetchResult.maximumBodyBytes - count)
        let taken = bytes.count <= room ? bytes : UnsafeRawBufferPointer(rebasing: bytes.prefix(room))
        hasher.update(taken)
        count += Int64(taken.count)
        if prefix.count < keep { prefix.append(contentsOf: taken.prefix(keep - prefix.count)) }
        if taken.count < bytes.count { isTruncated = true }
        return !isTruncated
    }

    /// The SHA-256 of the bytes taken.
    public func digest() -> [UInt8] {
        var finishing = hasher
        return finishing.finish()
    }
}
