import Foundation
import HTTPServing
import Imaging
import Scanning
import TestSupport
import Testing

@testable import Station

/// The camera's live view: downscaled frames with each code's outline, encoded only while someone
/// watches, served as one snapshot or a multipart MJPEG feed by a real `scanpick station`.
@Suite struct PreviewTests {
    func pixel(_ picture: (rgb: [UInt8], width: Int, height: Int), _ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * picture.width + x) * 3
        return Array(picture.rgb[at..<at + 3])
    }

    @Test func framesAreDownscaledWithGreenAndOrangeOutlines() throws {
        let frame = GreyImage(width: 1280, height: 720, filledWith: 128)
        let square = [(100, 100), (300, 100), (300, 300), (100, 300)].map { Barcode.Point(x: $0.0, y: $0.1) }
        let other = [(800, 400), (1000, 400), (1000, 600), (800, 600)].map { Barcode.Point(x: $0.0, y: $0.1) }
        let picture = PreviewFeed.render(
            frame,
            [
                PreviewFeed.Sighting(points: square, accepted: true),
                PreviewFeed.Sighting(points: other, accepted: false),
            ])
        #expect(picture.width == 640 && picture.height == 360)
        #expect(pixel(picture, 100, 50) == PreviewFeed.acceptedColour)  // on the first outline's top edge
        #expect(pixel(picture, 400, 250) == PreviewFeed.refusedColour)  // on the second's left edge
        #expect(pixel(picture, 100, 100) == [128, 128, 128])  // inside: the frame as it was
        // A point outside the frame is clamped, never written past the picture.
        let wild = PreviewFeed.Sighting(
            points: [Barcode.Point(x: -5000, y: 9000), .init(x: 99999, y: -1)], accepted: true)
        #expect(PreviewFeed.render(frame, [wild]).rgb.count == 640 * 360 * 3)

        let jpeg = try JPEGEncoder.encode(rgb: picture.rgb, width: picture.width, height: picture.height)
        let decoded = try ImageLoader().decode(jpeg)
        #expect(decoded.width == 640 && decoded.height == 360)
    }

    @Test func nothingIsEncodedWhileNobodyWatches() throws {
        let feed = PreviewFeed()
        let frame = GreyImage(width: 320, height: 240, filledWith: 0)
        var asked = 0
        for _ in 0..<5 {
            feed.offer(frame) {
                asked += 1
                return []
            }
        }
        #expect(feed.encodedFrames == 0)
        #expect(asked == 0)
        // No frame loop has offered a frame: no feed to watch.
        #expect(throws: HTTPError.self) { try PreviewFeed().subscribe() }
        let viewer = try feed.subscribe()
        let now = Date()
        feed.offer(frame, at: now) { [] }
        // Within 0.1 s of the last: skipped (at most 10 a second), however slow the machine.
        feed.offer(frame, at: now.addingTimeInterval(PreviewFeed.minInterval / 2)) { [] }
        #expect(feed.encodedFrames == 1)
        #expect(viewer.bufferedBytes > 0)
        var others = [viewer]
        for _ in 1..<PreviewFeed.maxViewers { others.append(try feed.subscribe()) }
        #expect(throws: HTTPError.self) { try feed.subscribe() }
        #expect(others.count == PreviewFeed.maxViewers)
    }

    @Test func theStationServesSnapshotsAndAFeedOfItsFrames() async throws {
        let fixture = try await StationFixture()
        let frames = try fixture.frames("view", [("clean/upca.png", 5), ("clean/code39.png", 5)])
        let station = try await StationProcess(
            config: fixture.config, arguments: ["--frames", frames, "--fps", "10", "--loop"])
        let page = APIClient(station.page, token: nil)
        let snapshot = try await page.get("/api/preview.jpg")
        #expect(snapshot.status == 200)
        #expect(snapshot.headers["content-type"] == "image/jpeg")
        let image = try ImageLoader().decode([UInt8](snapshot.body))
        #expect(image.width <= PreviewFeed.maxWidth)

        let port = UInt16(station.page.port ?? 0)
        let feed = try RawConnection(port: port)
        feed.send("GET /api/preview.mjpeg HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let head = try #require(feed.read(until: "Content-Type: image/jpeg", timeout: .seconds(10)))
        #expect(head.contains("multipart/x-mixed-replace; boundary=\(PreviewFeed.boundary)"))
        #expect(feed.read(until: "Content-Type: image/jpeg", timeout: .seconds(10)) != nil)  // and the next
        #expect(await station.stop() == 0)

        // A station with only a scanner has no picture: said at once, not a hung request.
        let wedge = try await StationProcess(config: fixture.config)
        let none = try await APIClient(wedge.page, token: nil).get("/api/preview.jpg")
        #expect(none.status == 503)
        #expect(none.json["error"] as? String == "no_frame")
        let noFeed = try await APIClient(wedge.page, token: nil).get("/api/preview.mjpeg")
        #expect(noFeed.status == 503)
        #expect(await wedge.stop() == 0)
    }
}
