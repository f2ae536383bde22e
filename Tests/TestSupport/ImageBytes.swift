import Foundation

/// Hand-made image files for loader tests: PNM writers and PNG chunks with a correct CRC, so a test
/// can state exactly what a header claims.
public enum ImageBytes {
    /// A binary PGM (`P5`) of `pixels`, 8-bit, or 16-bit big-endian when `maxValue > 255`.
    public static func pgm(width: Int, height: Int, maxValue: Int = 255, samples: [Int]) -> [UInt8] {
        var bytes = Array("P5\n# made by a test\n\(width) \(height)\n\(maxValue)\n".utf8)
        for sample in samples {
            if maxValue > 255 { bytes.append(UInt8(sample >> 8)) }
            bytes.append(UInt8(sample & 0xFF))
        }
        return bytes
    }

    /// A PNG signature and IHDR chunk claiming `width`×`height` 8-bit grey, then a tiny IDAT and an
    /// IEND: enough for a decoder to read the header, with almost no pixel data behind it.
    public static func pngHeaderOnly(width: UInt32, height: UInt32) -> [UInt8] {
        var ihdr = bigEndian(width) + bigEndian(height)
        ihdr += [8, 0, 0, 0, 0]  // bit depth 8, grey, deflate, adaptive filter, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    /// One PNG chunk: length, type, data and CRC-32.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
