/// Netpbm grey and colour maps → grey: PGM (`P2` text, `P5` binary) and PPM (`P3`, `P6`), with any
/// maximum value up to 65535 scaled to 8 bits.
enum PNMDecoder {
    static func decode(_ bytes: [UInt8], maxPixels: Int) throws(ImageLoadError) -> GreyImage {
        var reader = HeaderReader(bytes: bytes)
        let kind = bytes[1]
        let width = try reader.number("width")
        let height = try reader.number("height")
        let maxValue = try reader.number("maximum value")
        guard width > 0, height > 0 else { throw malformed("width and height must be positive") }
        guard (1...65535).contains(maxValue) else { throw malformed("maximum value \(maxValue) is not 1…65535") }
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixelCount <= maxPixels else {
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }

        let channels = (kind == UInt8(ascii: "3") || kind == UInt8(ascii: "6")) ? 3 : 1
        let binary = kind == UInt8(ascii: "5") || kind == UInt8(ascii: "6")
        let sampleCount = pixelCount * channels  // at most 3 × maxPixels
        // The file must hold every sample before anything is allocated for them: a 23-byte header
        // may claim a picture of terabytes.
        var offset = reader.offset + 1  // binary: exactly one whitespace byte ends the header
        let sampleBytes = binary && maxValue > 255 ? 2 : 1
        let leastBytes = binary ? sampleCount * sampleBytes : sampleCount * 2 - 1  // text: a digit and a space
        guard bytes.count - reader.offset >= leastBytes else { throw .truncated(format: .pnm) }

        func nextSample() throws(ImageLoadError) -> Int {
            let value: Int
            if binary {
                value = sampleBytes == 2 ? Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) : Int(bytes[offset])
                offset += sampleBytes
            } else {
                guard let number = try reader.optionalNumber() else { throw .truncated(format: .pnm) }
                value = number
            }
            guard value <= maxValue else { throw malformed("a sample is \(value), over the maximum value \(maxValue)") }
            return value
        }
        var pixels = [UInt8](repeating: 0, count: pixelCount)
        for index in 0..<pixelCount {
            let luma: Int
            if channels == 3 {
                let (r, g, b) = (try nextSample(), try nextSample(), try nextSample())
                luma = (299 * r + 587 * g + 114 * b) / 1000
            } else {
                luma = try nextSample()
            }
            pixels[index] = UInt8(min(255, (luma * 255 + maxValue / 2) / maxValue))
        }
        return GreyImage(width: width, height: height, pixels: pixels)
    }

    static func malformed(_ reason: String) -> ImageLoadError { .malformed(format: .pnm, reason: reason) }

    /// Reads whitespace-separated decimal numbers after the two-byte magic, skipping `#` comments.
    struct HeaderReader {
        let bytes: [UInt8]
        var offset = 2

        mutating func number(_ name: String) throws(ImageLoadError) -> Int {
            guard let value = try optionalNumber() else {
                throw offset >= bytes.count ? .truncated(format: .pnm) : PNMDecoder.malformed("bad \(name)")
            }
            return value
        }

        mutating func optionalNumber() throws(ImageLoadError) -> Int? {
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "#") {
                    while offset < bytes.count && bytes[offset] != 0x0A { offset += 1 }
                } else if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    offset += 1
                } else {
                    break
                }
            }
            guard offset < bytes.count else { return nil }
            var value = 0
            var digits = 0
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
                value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
                digits += 1
                offset += 1
                if digits > 9 { throw PNMDecoder.malformed("number too long in header") }
            }
            guard digits > 0 else { throw PNMDecoder.malformed("unexpected byte \(bytes[offset]) in header") }
            return value
        }
    }
}
