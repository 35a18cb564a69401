// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    /// FIPS 180-4 examples (NIST's "SHA256.pdf", "SHA256 2-block") and the empty input.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
            + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func vectors(input: String, digest: String) {
        #expect(Hexadecimal.text(SHA256.digest(Array(input.utf8))) == digest)
    }

    @Test("a million times 'a', fed in uneven pieces, is the NIST digest")
    func millionAs() {
        var hasher = SHA256()
        var fed = 0
        var piece = 1
        while fed < 1_000_000 {
            let count = min(piece, 1_000_000 - fed)
            hasher.update(repeatElement(UInt8(ascii: "a"), count: count))
            fed += count
            piece = piece % 997 + 63
        }
        #expect(Hexadecimal.text(hasher.finish())
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("lengths around the padding boundary (55, 56, 64 bytes) agree piecewise and whole")
    func paddingBoundaries() {
        // sha256sum of 55, 56 and 64 bytes of "a".
        let known = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for (length, digest) in known {
            let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(Hexadecimal.text(SHA256.digest(bytes)) == digest, "\(length) bytes")
            var split = SHA256()
            split.update(bytes.prefix(7))
            split.update(bytes.dropFirst(7))
            #expect(Hexadecimal.text(split.finish()) == digest, "\(length) bytes in two pieces")
        }
    }
}
