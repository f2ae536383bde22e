import Imaging
import Scanning

/// The outcome of decoding one input: the codes found, or why the file could not be read.
public struct ImageReport: Sendable, Equatable {
    /// The path as given on the command line or found by the directory walk.
    public var file: String
    public var barcodes: [Barcode]
    /// Time spent loading and scanning this image, in milliseconds.
    public var milliseconds: Double
    /// Set when the file could not be read as an image; `barcodes` is then empty.
    public var error: ImageLoadError?

    public init(file: String, barcodes: [Barcode], milliseconds: Double, error: ImageLoadError? = nil) {
        self.file = file
        self.barcodes = barcodes
        self.milliseconds = milliseconds
        self.error = error
    }
}
