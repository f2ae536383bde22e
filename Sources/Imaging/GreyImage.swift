/// An 8-bit grey image, one byte per pixel, rows top to bottom with no padding.
///
/// The common currency of the scanner: files, camera frames and generated test images all become
/// a `GreyImage` before a barcode reader sees them.
///
///     let image = GreyImage(width: 2, height: 1, pixels: [0, 255])
public struct GreyImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height` luminance values, row-major.
    public var pixels: [UInt8]

    /// Wraps pixels that are already grey; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixel count")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A uniform image of `value`.
    public init(width: Int, height: Int, filledWith value: UInt8) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: value, count: width * height))
    }

    /// The pixel at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
