import CPNG

/// PNG → grey through libpng's simplified `png_image` API, which handles every bit depth, palette,
/// transparency and 16-bit channel. Transparent parts are composed onto white, the usual paper.
enum PNGDecoder {
    static func decode(_ bytes: [UInt8], maxPixels: Int) throws(ImageLoadError) -> GreyImage {
        var image = png_image()
        image.version = scanpick_png_image_version
        defer { png_image_free(&image) }

        let began = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw failure(image, default: "unreadable header") }

        let width = Int(image.width)
        let height = Int(image.height)
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixelCount <= maxPixels else {
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }

        image.format = scanpick_png_format_gray
        var pixels = [UInt8](repeating: 0, count: pixelCount)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, &white, buffer.baseAddress, Int32(width), nil)
        }
        guard finished != 0 else { throw failure(image, default: "unreadable pixel data") }
        return GreyImage(width: width, height: height, pixels: pixels)
    }

    /// libpng's message for the failed `image`, as an ``ImageLoadError``.
    private static func failure(_ image: png_image, default fallback: String) -> ImageLoadError {
        var message = image.message
        let text = withUnsafeBytes(of: &message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let reason = text.isEmpty ? fallback : text
        let lowered = reason.lowercased()
        if lowered.contains("eof") || lowered.contains("end of") || lowered.contains("truncated") {
            return .truncated(format: .png)
        }
        return .malformed(format: .png, reason: reason)
    }
}
