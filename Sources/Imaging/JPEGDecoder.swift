import CTurboJPEG

/// JPEG → grey through libjpeg-turbo's TurboJPEG API, which converts to luminance while decoding
/// (the chroma planes are never expanded). Baseline, progressive, grey, colour and CMYK files.
///
/// libjpeg-turbo reports damage it could work around (stray bytes between markers) as a warning;
/// such an image is kept. A file that stops before its end-of-image marker is refused as truncated.
enum JPEGDecoder {
    static func decode(_ bytes: [UInt8], maxPixels: Int) throws(ImageLoadError) -> GreyImage {
        guard let handle = tjInitDecompress() else {
            throw .malformed(format: .jpeg, reason: "libjpeg-turbo could not start a decoder")
        }
        defer { tjDestroy(handle) }

        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(
                handle, buffer.baseAddress, UInt(buffer.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else { throw failure(handle, bytes) }
        // A file cut inside its header can leave TurboJPEG's header read "successful" with no size.
        guard width > 0, height > 0 else {
            guard hasEndMarker(bytes) else { throw .truncated(format: .jpeg) }
            throw .malformed(format: .jpeg, reason: "its header gives no size")
        }
        let pixelCount = Int(width) * Int(height)
        guard pixelCount <= maxPixels else {
            throw .tooManyPixels(width: Int(width), height: Int(height), limit: maxPixels)
        }

        // TurboJPEG cannot turn CMYK into grey directly: decode CMYK and convert here.
        let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let pixelFormat = isCMYK ? TJPF_CMYK : TJPF_GRAY
        let channels = isCMYK ? 4 : 1
        var output = [UInt8](repeating: 0, count: pixelCount * channels)
        let flags = TJFLAG_LIMITSCANS  // refuse progressive files crafted to take forever
        let result = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                tjDecompress2(
                    handle, input.baseAddress, UInt(input.count), out.baseAddress, width, 0, height,
                    pixelFormat.rawValue, flags)
            }
        }
        if result != 0 {
            let isWarning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
            guard isWarning, hasEndMarker(bytes) else { throw failure(handle, bytes) }
        }
        if isCMYK { output = greyFromCMYK(output) }
        return GreyImage(width: Int(width), height: Int(height), pixels: output)
    }

    /// Whether the file ends with JPEG's end-of-image marker (FF D9), ignoring trailing padding.
    static func hasEndMarker(_ bytes: [UInt8]) -> Bool {
        var end = bytes.count
        while end > 2 && (bytes[end - 1] == 0 || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D) {
            end -= 1
        }
        return end >= 2 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
    }

    private static func failure(_ handle: tjhandle, _ bytes: [UInt8]) -> ImageLoadError {
        if !hasEndMarker(bytes) && bytes.count > 2 {
            // Most "corrupt" JPEGs in the wild are simply cut short; say so.
            let reason = String(cString: tjGetErrorStr2(handle))
            if reason.contains("Premature end") || reason.contains("end of") { return .truncated(format: .jpeg) }
        }
        return .malformed(format: .jpeg, reason: String(cString: tjGetErrorStr2(handle)))
    }

    /// Adobe CMYK JPEGs store inverted ink values: luminance is the product of the complements.
    private static func greyFromCMYK(_ cmyk: [UInt8]) -> [UInt8] {
        var grey = [UInt8](repeating: 0, count: cmyk.count / 4)
        for index in grey.indices {
            let c = Int(cmyk[4 * index])
            let m = Int(cmyk[4 * index + 1])
            let y = Int(cmyk[4 * index + 2])
            let k = Int(cmyk[4 * index + 3])
            let luma = (299 * c + 587 * m + 114 * y) / 1000
            grey[index] = UInt8(luma * k / 255)
        }
        return grey
    }
}
