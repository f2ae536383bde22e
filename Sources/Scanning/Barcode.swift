/// One barcode found in an image: what it says, where it is, and how sure the reader was.
public struct Barcode: Sendable, Equatable {
    /// Which way the code reads, as ZBar reports it.
    public enum Orientation: String, Sendable, Codable {
        case up = "UP"
        case right = "RIGHT"
        case down = "DOWN"
        case left = "LEFT"
        case unknown = "UNKNOWN"
    }

    public var symbology: Symbology
    /// The payload exactly as decoded. Usually UTF-8 text; QR codes may carry arbitrary bytes.
    public var payload: [UInt8]
    /// ZBar's quality score: for linear codes, the number of scan lines that read it.
    public var quality: Int
    /// The outline of the code in image coordinates.
    public var points: [Point]
    public var orientation: Orientation

    public init(
        symbology: Symbology, payload: [UInt8], quality: Int = 1, points: [Point] = [],
        orientation: Orientation = .unknown
    ) {
        self.symbology = symbology
        self.payload = payload
        self.quality = quality
        self.points = points
        self.orientation = orientation
    }

    /// A code whose payload is `text` in UTF-8.
    public init(symbology: Symbology, text: String) {
        self.init(symbology: symbology, payload: Array(text.utf8))
    }

    /// The payload as text, or nil when it is not valid UTF-8 (binary data).
    public var text: String? {
        String(validating: payload, as: UTF8.self)
    }

    /// A pixel position.
    public struct Point: Sendable, Equatable {
        public var x: Int
        public var y: Int
        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }
}
