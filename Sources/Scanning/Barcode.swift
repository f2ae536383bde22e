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
    /// The outline of the code in image coordinates: the convex hull of the points where ZBar saw it,
    /// clockwise on screen from the leftmost point (about four corners for a clean code).
    public var points: [Point]
    public var orientation: Orientation
    /// Whether the payload is a GS1 element string: a GS1 DataBar, or a code the reader saw begin
    /// with FNC1 (GS1-128, GS1 Data Matrix, GS1 QR). Its variable-length elements end with GS.
    public var isGS1: Bool

    public init(
        symbology: Symbology, payload: [UInt8], quality: Int = 1, points: [Point] = [],
        orientation: Orientation = .unknown, isGS1: Bool? = nil
    ) {
        self.symbology = symbology
        self.payload = payload
        self.quality = quality
        self.points = points
        self.orientation = orientation
        self.isGS1 = isGS1 ?? [.databar, .databarExpanded].contains(symbology)
    }

    /// A code whose payload is `text` in UTF-8.
    public init(symbology: Symbology, text: String) {
        self.init(symbology: symbology, payload: Array(text.utf8))
    }

    /// The payload as text, or nil when it is not valid UTF-8 (binary data).
    public var text: String? {
        String(validating: payload, as: UTF8.self)
    }

    /// The same code with each point of its outline moved by `transform` (read from a transformed
    /// picture).
    func mappingPoints(_ transform: (Point) -> Point) -> Barcode {
        var copy = self
        copy.points = points.map(transform)
        return copy
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

extension Barcode.Point {
    /// The convex hull of `points` (Andrew's monotone chain), without collinear points.
    static func convexHull(_ points: [Barcode.Point]) -> [Barcode.Point] {
        let sorted = Set(points.map { [$0.x, $0.y] }).map { Barcode.Point(x: $0[0], y: $0[1]) }
            .sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: Barcode.Point, _ a: Barcode.Point, _ b: Barcode.Point) -> Int {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [Barcode.Point] = []
        for point in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], point) <= 0 {
                lower.removeLast()
            }
            lower.append(point)
        }
        var upper: [Barcode.Point] = []
        for point in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], point) <= 0 {
                upper.removeLast()
            }
            upper.append(point)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }
}
