import CCrypto

/// SHA-256 from OpenSSL's libcrypto, as lower-case hex: how server configs store bearer tokens and
/// how the idempotency store fingerprints a request.
///
///     SHA256.hex(of: "token")  // "3c469e9d6c5875d37a43f353d4f88e61fcf812c66eee3457465a40b0da4153e0"
public enum SHA256 {
    public static func hex(of text: String) -> String { hex(of: Array(text.utf8)) }

    public static func hex(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            _ = CCrypto.SHA256(input.baseAddress, input.count, &digest)
        }
        let digits = Array("0123456789abcdef".utf8)
        var hex = [UInt8](repeating: 0, count: digest.count * 2)
        for (index, byte) in digest.enumerated() {
            hex[2 * index] = digits[Int(byte >> 4)]
            hex[2 * index + 1] = digits[Int(byte & 0x0F)]
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Whether `text` is a SHA-256 as ``hex(of:)`` writes it: 64 lower-case hex digits.
    public static func isHex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Compares two strings in time that does not depend on where they differ.
    public static func constantTimeEqual(_ first: String, _ second: String) -> Bool {
        let a = Array(first.utf8)
        let b = Array(second.utf8)
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }
}
