import CTurboJPEG

/// RGB → JPEG through libjpeg-turbo's TurboJPEG API (4:2:0, for a live preview).
///
///     let jpeg = try JPEGEncoder.encode(rgb: pixels, width: 640, height: 360, quality: 70)
public enum JPEGEncoder {
    /// Encodes `rgb` (3 bytes a pixel, rows top to bottom, `width × height` pixels).
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int = 70) throws(ImageLoadError)
        -> [UInt8]
    {
        guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14, rgb.count == width * height * 3 else {
            throw .malformed(format: .jpeg, reason: "\(width)×\(height) does not fit \(rgb.count) RGB bytes")
        }
        guard let handle = tjInitCompress() else {
            throw .malformed(format: .jpeg, reason: "libjpeg-turbo could not start an encoder")
        }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = rgb.withUnsafeBufferPointer { input in
            tjCompress2(
                handle, input.baseAddress, Int32(width), 0, Int32(height), TJPF_RGB.rawValue, &output, &size,
                Int32(TJSAMP_420.rawValue), Int32(min(100, max(1, quality))), 0)
        }
        defer { if let output { tjFree(output) } }
        guard result == 0, let output else {
            throw .malformed(format: .jpeg, reason: String(cString: tjGetErrorStr2(handle)))
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
