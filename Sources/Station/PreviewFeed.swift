import Foundation
import HTTPServing
import Imaging
import Scanning
import Synchronization

/// The camera's live view for the page (`GET /api/preview.mjpeg`, `GET /api/preview.jpg`): the
/// newest frame, downscaled to at most ``maxWidth`` pixels wide, at most 10 a second, with the
/// outline of each code seen in it (green when its scan was accepted, orange otherwise), as JPEG
/// (libjpeg-turbo). Nothing is drawn or encoded while nobody watches: the frame loop's only cost
/// then is one lock to see that.
///
/// Bounded: at most ``maxViewers`` feeds; a feed whose client has not taken the last frame skips
/// the next (a slow client sees fewer frames, and holds at most one).
///
///     preview.offer(frame.image) { loop.sightings() }   // on the frame loop
public final class PreviewFeed: Sendable {
    static let maxWidth = 640
    /// The least time between two encoded frames (10 a second at most).
    static let minInterval = 0.1
    static let maxViewers = 4
    static let boundary = "scanpick-frame"
    /// How long a snapshot request waits for a frame, and how many may wait at once.
    static let snapshotWait = 2.0
    static let maxSnapshotWaiters = 2

    /// A code seen in the frame: its outline in the frame's pixels, and whether its scan counted.
    public struct Sighting: Sendable, Equatable {
        public var points: [Barcode.Point]
        public var accepted: Bool

        public init(points: [Barcode.Point], accepted: Bool) {
            self.points = points
            self.accepted = accepted
        }
    }

    public init() {}

    private struct State {
        var streams: [HTTPStream] = []
        var waiters: [DispatchSemaphore] = []
        var latest: [UInt8]?
        var latestAt = Date.distantPast
        var lastEncode = Date.distantPast
        /// When the frame loop last offered a frame (encoded or not).
        var lastOffer = Date.distantPast
        var encoded = 0
    }

    private let state = Mutex(State())

    /// How many frames were encoded (none while nobody watches).
    var encodedFrames: Int { state.withLock { $0.encoded } }

    /// Offers the frame loop's newest frame, captured `now`; `sightings` is asked only when the frame
    /// is encoded.
    func offer(_ image: GreyImage, at now: Date = Date(), sightings: () -> [Sighting]) {
        let wanted = state.withLock { state -> Bool in
            state.lastOffer = now
            guard !state.streams.isEmpty || !state.waiters.isEmpty else { return false }
            state.streams.removeAll { $0.isFinished }
            guard now.timeIntervalSince(state.lastEncode) >= Self.minInterval else { return false }
            state.lastEncode = now
            return true
        }
        guard wanted, let jpeg = try? Self.picture(of: image, sightings()) else { return }
        let (streams, waiters) = state.withLock { state in
            state.latest = jpeg
            state.latestAt = now
            state.encoded += 1
            defer { state.waiters = [] }
            return (state.streams, state.waiters)
        }
        let part = Self.part(jpeg)
        for stream in streams { stream.writeIfDrained(part) }
        for waiter in waiters { waiter.signal() }
    }

    /// A new viewer's multipart feed, starting with the newest frame; refused past ``maxViewers``,
    /// and when no frame loop runs (a station with only scanners has no picture).
    func subscribe() throws(HTTPError) -> HTTPStream {
        let stream = HTTPStream(maxBufferedBytes: 1 << 20)
        let now = Date()
        let latest = try state.withLock { state throws(HTTPError) -> [UInt8]? in
            state.streams.removeAll { $0.isFinished }
            guard now.timeIntervalSince(state.lastOffer) < Self.snapshotWait else { throw Self.noFrame }
            guard state.streams.count < Self.maxViewers else {
                throw HTTPError(
                    status: 503, code: "too_many_viewers",
                    message: "\(Self.maxViewers) viewers already watch this station's camera")
            }
            state.streams.append(stream)
            return now.timeIntervalSince(state.latestAt) < 1 ? state.latest : nil
        }
        if let latest { stream.write(Self.part(latest)) }
        return stream
    }

    /// No frame loop runs, or none offered a frame lately.
    static let noFrame = HTTPError(
        status: 503, code: "no_frame",
        message: "no camera frame came in \(Int(snapshotWait)) s (no camera running: a scanner has no picture)")

    /// The newest frame as JPEG: the last one encoded if recent, else the next one (waiting up to
    /// ``snapshotWait``); nil when no frame comes (no camera, or a scanner with no picture).
    func snapshot() -> [UInt8]? {
        let waiter = DispatchSemaphore(value: 0)
        let recent = state.withLock { state -> [UInt8]?? in
            if Date().timeIntervalSince(state.latestAt) < 0.5, let latest = state.latest { return latest }
            // Each waiter holds one of the page's few workers: a few at most, the rest get no frame.
            guard state.waiters.count < Self.maxSnapshotWaiters else { return .some(nil) }
            state.waiters.append(waiter)
            return nil
        }
        if let recent { return recent }
        let came = waiter.wait(timeout: .now() + Self.snapshotWait) == .success
        return state.withLock { state in
            state.waiters.removeAll { $0 === waiter }
            return came ? state.latest : nil
        }
    }

    /// Ends every feed.
    func stop() {
        let (streams, waiters) = state.withLock { state in
            defer {
                state.streams = []
                state.waiters = []
            }
            return (state.streams, state.waiters)
        }
        for stream in streams { stream.end() }
        for waiter in waiters { waiter.signal() }
    }

    /// The preview of `image` as JPEG: downscaled, outlined (what a viewer costs the frame loop, per
    /// frame encoded; `scripts/bench-frames` measures it).
    public static func picture(of image: GreyImage, _ sightings: [Sighting]) throws -> [UInt8] {
        let picture = render(image, sightings)
        return try JPEGEncoder.encode(rgb: picture.rgb, width: picture.width, height: picture.height)
    }

    /// One part of the `multipart/x-mixed-replace` feed.
    static func part(_ jpeg: [UInt8]) -> [UInt8] {
        Array("--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8) + jpeg
            + Array("\r\n".utf8)
    }

    static let acceptedColour: [UInt8] = [0, 200, 83]
    static let refusedColour: [UInt8] = [230, 159, 0]

    /// The frame downscaled by a whole factor to at most ``maxWidth`` wide, as RGB, with each
    /// sighting's outline drawn 3 px wide.
    static func render(_ image: GreyImage, _ sightings: [Sighting]) -> (rgb: [UInt8], width: Int, height: Int) {
        let factor = max(1, (image.width + maxWidth - 1) / maxWidth)
        let width = max(1, image.width / factor)
        let height = max(1, image.height / factor)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        image.pixels.withUnsafeBufferPointer { grey in
            rgb.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let row = y * factor * image.width
                    for x in 0..<width {
                        let value = grey[row + x * factor]
                        let at = (y * width + x) * 3
                        out[at] = value
                        out[at + 1] = value
                        out[at + 2] = value
                    }
                }
            }
        }
        for sighting in sightings where !sighting.points.isEmpty {
            let colour = sighting.accepted ? acceptedColour : refusedColour
            let points = sighting.points.map { Barcode.Point(x: $0.x / factor, y: $0.y / factor) }
            for (index, from) in points.enumerated() {
                let to = points[(index + 1) % points.count]
                line(from, to, colour, &rgb, width, height)
            }
        }
        return (rgb, width, height)
    }

    /// Draws a 3 px line (Bresenham, each point a 3×3 square), clipped to the picture.
    private static func line(
        _ from: Barcode.Point, _ to: Barcode.Point, _ colour: [UInt8], _ rgb: inout [UInt8], _ width: Int,
        _ height: Int
    ) {
        // Points come from the decoder inside the frame; clamp anyway so a bad one cannot loop long.
        func clamp(_ point: Barcode.Point) -> (Int, Int) {
            (min(max(point.x, 0), width - 1), min(max(point.y, 0), height - 1))
        }
        var (x, y) = clamp(from)
        let (x1, y1) = clamp(to)
        let dx = abs(x1 - x)
        let dy = -abs(y1 - y)
        let sx = x < x1 ? 1 : -1
        let sy = y < y1 ? 1 : -1
        var error = dx + dy
        while true {
            for oy in -1...1 {
                for ox in -1...1 {
                    let px = x + ox
                    let py = y + oy
                    guard px >= 0, py >= 0, px < width, py < height else { continue }
                    let at = (py * width + px) * 3
                    rgb[at] = colour[0]
                    rgb[at + 1] = colour[1]
                    rgb[at + 2] = colour[2]
                }
            }
            if x == x1 && y == y1 { break }
            let doubled = 2 * error
            if doubled >= dy {
                error += dy
                x += sx
            }
            if doubled <= dx {
                error += dx
                y += sy
            }
        }
    }
}
