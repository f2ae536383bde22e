import CV4L2
import Imaging

/// A V4L2 pixel format, and how cheaply scanpick gets 8-bit grey out of it.
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    public var fourcc: UInt32
    /// libv4lconvert makes it from another format (costs a conversion per frame).
    public var emulated: Bool

    public init(fourcc: UInt32, emulated: Bool = false) {
        self.fourcc = fourcc
        self.emulated = emulated
    }

    /// The four characters (`YUYV`, `MJPG`, …).
    public var description: String {
        String(decoding: (0..<4).map { UInt8((fourcc >> (8 * $0)) & 0xFF) }, as: UTF8.self)
    }

    /// How luma is taken from a frame of this format.
    public enum LumaPath: Int, Comparable, Sendable {
        /// The frame is grey already.
        case grey = 0
        /// Planar YUV: the Y plane comes first.
        case planar = 1
        /// Packed 4:2:2: every other byte.
        case packed = 2
        /// JPEG frames, decoded to grey with libjpeg-turbo.
        case jpeg = 3

        public static func < (a: LumaPath, b: LumaPath) -> Bool { a.rawValue < b.rawValue }
    }

    /// The path for this format, or nil when scanpick cannot read it directly.
    public var lumaPath: LumaPath? {
        switch fourcc {
        case scanpick_v4l2_fmt_grey: .grey
        case scanpick_v4l2_fmt_yuv420, scanpick_v4l2_fmt_yvu420, scanpick_v4l2_fmt_nv12, scanpick_v4l2_fmt_nv21: .planar
        case scanpick_v4l2_fmt_yuyv, scanpick_v4l2_fmt_uyvy: .packed
        case scanpick_v4l2_fmt_mjpeg, scanpick_v4l2_fmt_jpeg: .jpeg
        default: nil
        }
    }

    /// The cheapest readable format of `offered`: the driver's own before libv4lconvert's emulated
    /// ones, and among those GREY, then planar YUV, then YUYV/UYVY, then MJPEG.
    public static func cheapest(of offered: [PixelFormat]) -> PixelFormat? {
        offered.filter { $0.lumaPath != nil }.min { a, b in
            (a.emulated ? 1 : 0, a.lumaPath!) < (b.emulated ? 1 : 0, b.lumaPath!)
        }
    }
}

/// Luma out of raw frame bytes; `stride` is the bytes per line the driver reported.
enum Luma {
    /// One captured buffer as a grey image, or nil when it is short or corrupt (a damaged MJPEG
    /// frame is skipped and counted by the camera, never fatal).
    static func grey(
        from bytes: UnsafeRawBufferPointer, format: PixelFormat, width: Int, height: Int, stride: Int, jpeg: ImageLoader
    ) -> GreyImage? {
        let pixels: [UInt8]?
        switch format.lumaPath {
        case .grey, .planar: pixels = firstPlane(bytes, width: width, height: height, stride: stride)
        case .packed:
            pixels = packed(
                bytes, width: width, height: height, stride: stride, lumaFirst: format.fourcc == scanpick_v4l2_fmt_yuyv)
        case .jpeg: return try? jpeg.decode(Array(bytes))
        case nil: pixels = nil
        }
        return pixels.map { GreyImage(width: width, height: height, pixels: $0) }
    }

    /// GREY or the Y plane of planar YUV: the first `height` lines.
    static func firstPlane(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) -> [UInt8]? {
        let lineBytes = max(stride, width)
        guard bytes.count >= lineBytes * (height - 1) + width else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBytes { out in
            for row in 0..<height {
                out.baseAddress!.advanced(by: row * width).copyMemory(
                    from: bytes.baseAddress!.advanced(by: row * lineBytes), byteCount: width)
            }
        }
        return pixels
    }

    /// Packed 4:2:2 (YUYV: luma at even bytes; UYVY: at odd bytes).
    static func packed(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int, lumaFirst: Bool)
        -> [UInt8]?
    {
        let lineBytes = max(stride, width * 2)
        guard bytes.count >= lineBytes * (height - 1) + width * 2 else { return nil }
        let offset = lumaFirst ? 0 : 1
        var pixels = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            let line = row * lineBytes + offset
            for column in 0..<width { pixels[row * width + column] = bytes[line + 2 * column] }
        }
        return pixels
    }
}
