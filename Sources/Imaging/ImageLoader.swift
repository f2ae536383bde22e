/// Loads still-image files (PNG, JPEG, PGM/PPM) as ``GreyImage``s, recognising the format by the
/// file's signature rather than its name, and refusing oversized images before allocating them.
///
///     let image = try ImageLoader().load(path: "SampleImages/ean13-clean.png")
public struct ImageLoader: Sendable {
    /// Limits that keep one hostile file from exhausting memory.
    public struct Limits: Sendable, Equatable {
        /// Largest image accepted, in pixels (default 64 Mi, e.g. 8192×8192).
        public var maxPixels: Int
        /// Largest file accepted, in bytes (default 256 MiB).
        public var maxFileBytes: Int

        public init(maxPixels: Int = 64 << 20, maxFileBytes: Int = 256 << 20) {
            self.maxPixels = maxPixels
            self.maxFileBytes = maxFileBytes
        }
    }

    public var limits: Limits

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Reads and decodes the file at `path`.
    public func load(path: String) throws(ImageLoadError) -> GreyImage {
        try decode(FileBytes.read(path: path, limit: limits.maxFileBytes))
    }

    /// Decodes an image held in memory.
    public func decode(_ bytes: [UInt8]) throws(ImageLoadError) -> GreyImage {
        if bytes.isEmpty { throw .empty }
        switch ImageFormat.sniff(bytes) {
        case .png: return try PNGDecoder.decode(bytes, maxPixels: limits.maxPixels)
        case .jpeg: return try JPEGDecoder.decode(bytes, maxPixels: limits.maxPixels)
        case .pnm: return try PNMDecoder.decode(bytes, maxPixels: limits.maxPixels)
        case nil: throw .unknownFormat
        }
    }
}
