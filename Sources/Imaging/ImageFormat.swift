/// The still-image file formats the loader understands, recognised by their first bytes.
public enum ImageFormat: String, Sendable, CustomStringConvertible {
    case png = "PNG"
    case jpeg = "JPEG"
    case pnm = "PNM"

    public var description: String { rawValue }

    /// File name extensions a directory walk treats as images (lower case, no dot).
    public static let fileExtensions: Set<String> = ["png", "jpg", "jpeg", "pgm", "ppm", "pnm"]

    /// The format whose signature starts `bytes`, or nil.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        let head = Array(bytes.prefix(8))
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF { return .jpeg }
        if head.count >= 3 && head[0] == UInt8(ascii: "P")
            && [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "5"), UInt8(ascii: "6")].contains(head[1])
            && [0x20, 0x09, 0x0A, 0x0D].contains(head[2])
        {
            return .pnm
        }
        return nil
    }
}
