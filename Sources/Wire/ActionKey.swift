import Glibc

/// The idempotency key a station gives each action it queues: a UUID of version 7 (RFC 9562) in
/// lower-case text, `0193a1f2-7c4e-7d2a-9b1e-5f0c3a8d2e61`: 48 bits of Unix milliseconds, the
/// version, then 74 random bits. Keys made later sort after earlier ones, so the server's index of
/// keys takes each new one at its right-hand edge: a round of writes committed together changes one
/// leaf of it, where random keys change a leaf each (and, once the index outgrows the cache, read
/// one each). The 74 random bits keep keys made in the same millisecond, or by a clock set back,
/// apart. The server accepts any key (1–255 visible ASCII characters); this is only what ours send.
///
///     let key = ActionKey.make()   // "0193a1f2-7c4e-7d2a-9b1e-5f0c3a8d2e61"
public enum ActionKey {
    /// A new key for an action taken at `unixMilliseconds` (now, by default).
    public static func make(unixMilliseconds: UInt64 = currentUnixMilliseconds()) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(unixMilliseconds: unixMilliseconds, using: &generator)
    }

    /// A new key from `generator`'s random bits (a seeded one makes keys a test can repeat).
    public static func make(unixMilliseconds: UInt64, using generator: inout some RandomNumberGenerator) -> String {
        let random = generator.next() as UInt64
        let more = generator.next() as UInt64
        // 48 bits of time | version 7 | 12 random bits; then variant 0b10 | 62 random bits.
        let high = (unixMilliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | (random & 0x0FFF)
        let low = 0x8000_0000_0000_0000 | (more & 0x3FFF_FFFF_FFFF_FFFF)
        // 32 hex digits, most significant first, with the dashes of 8-4-4-4-12.
        return String(unsafeUninitializedCapacity: 36) { text in
            var written = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    text[written] = UInt8(ascii: "-")
                    written += 1
                }
                let word = digit < 16 ? high : low
                text[written] = hexDigits[Int(word >> UInt64(60 - 4 * (digit % 16)) & 0xF)]
                written += 1
            }
            return written
        }
    }

    /// The milliseconds since 1970 a key made by ``make(unixMilliseconds:)`` carries; nil for any
    /// other text.
    public static func unixMilliseconds(of key: String) -> UInt64? {
        let bytes = Array(key.utf8)
        guard bytes.count == 36, bytes[14] == UInt8(ascii: "7"),
            [8, 13, 18, 23].allSatisfy({ bytes[$0] == UInt8(ascii: "-") })
        else { return nil }
        let digits = bytes.enumerated().filter { ![8, 13, 18, 23].contains($0.offset) }.map(\.element)
        guard digits.allSatisfy({ hexDigits.contains($0) }) else { return nil }
        return UInt64(String(decoding: digits.prefix(12), as: UTF8.self), radix: 16)
    }

    /// Now, in milliseconds since 1970 (the wall clock, as a station's actions are stamped).
    public static func currentUnixMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) * 1000 + UInt64(max(0, now.tv_nsec)) / 1_000_000
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
