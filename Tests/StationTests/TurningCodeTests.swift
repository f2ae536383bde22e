import Foundation
import Imaging
import TestSupport
import Testing

/// The angled look in the station's frame loop: `scanpick station --frames` replaying generated
/// frames of an item turned through 0–90° in front of the camera and held still at several angles.
@Suite struct TurningCodeTests {
    /// The angles the item is held at: upright, between, and turned a quarter.
    static let holds: [Double] = [0, 25, 45, 65, 90]
    /// Frames per hold (2 s at 5 frames/s: longer than the 1.5 s hold-off, so a read lost for a
    /// while within a hold would count twice) and per turn from one hold to the next (1.6 s).
    static let holdFrames = 10
    static let turnFrames = 8

    @Test func aCodeHeldAtEachAngleIsScannedOnceAtEachAndNeverTwicePerHold() async throws {
        let fixture = try await StationFixture()
        let folder = fixture.folder.file("turning")
        // Drawing some 80 frames pixel by pixel takes seconds of CPU: on a thread of its own, never on
        // one of the task pool's two threads, which every test of the parallel suite shares.
        let ranges = try await onOwnThread { try Self.writeFrames(into: folder) }

        let run = try await fixture.scanpick(["station", "--frames", folder, "--fps", "5"])
        #expect(run.status == 0, "\(run.standardError)")
        let scans = StationFixture.scanLines(run)
        #expect(
            scans.allSatisfy { $0["code"] as? String == "036000291452" },
            "codes scanned: \(scans.map { "\($0["frame"] ?? "?"): \($0["code"] ?? "?")" })")
        for (angle, range) in zip(Self.holds, ranges) {
            let here = scans.filter { range.contains($0["frame"] as? Int ?? -1) }
            #expect(here.count == 1, "held at \(angle)°: \(here.count) scans in frames \(range)")
        }
        #expect(scans.count == Self.holds.count, "scans at frames \(scans.map { $0["frame"] as? Int ?? -1 })")
        // A1 wants 3: the first three holds count, the others are for a complete task.
        #expect(scans.map { $0["accepted"] as? Bool } == [true, true, true, false, false])
    }

    /// Writes the frames as numbered PGM files into `folder`: each hold's frames, with the turn from
    /// the last hold before it; returns each hold's frame numbers.
    static func writeFrames(into folder: String) throws -> [Range<Int>] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var ranges: [Range<Int>] = []
        var frame = 0
        func write(_ image: GreyImage) throws {
            let header = Array("P5\n\(image.width) \(image.height)\n255\n".utf8)
            let path = folder + String(format: "/%05d.pgm", frame)
            try Data(header + image.pixels).write(to: URL(fileURLWithPath: path))
            frame += 1
        }
        for (index, angle) in holds.enumerated() {
            if index > 0 {
                // Turning: the item swung from the last angle to this one, blurred across its bars.
                let from = holds[index - 1]
                for step in 1...turnFrames {
                    let passing = from + (angle - from) * Double(step) / Double(turnFrames + 1)
                    try write(Self.frame(at: passing, moving: true, seed: frame))
                }
            }
            let start = frame
            for _ in 0..<holdFrames {
                // Held by hand: a tremor of a degree or so and the sensor's noise, never two frames alike.
                let tremor = Double(frame % 5 - 2) * 0.4
                try write(Self.frame(at: angle + tremor, moving: false, seed: frame))
            }
            ranges.append(start..<frame)
        }
        return ranges
    }

    /// A 640×360 frame: a lit bench with the item's label (UPC-A 036000291452 as its EAN-13, modules
    /// of 2 pixels) in the middle turned by `degrees`, with ±12 grey levels of seeded noise; a
    /// `moving` item is smeared 15 pixels across its bars.
    static func frame(at degrees: Double, moving: Bool, seed: Int) -> GreyImage {
        let drawn = BarcodeRenderer.ean13("003600029145", moduleWidth: 2, height: 80)
        var label = GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels).padded(by: 12)
        if moving { label = smearedAcross(label, by: 15) }
        let turned = label.rotated(byDegrees: degrees, background: 150)
        var frame = GreyImage(width: 640, height: 360, filledWith: 150)
        var state = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let codeX = x - (frame.width - turned.width) / 2
                let codeY = y - (frame.height - turned.height) / 2
                var level = 130 + 40 * x / frame.width
                if codeX >= 0, codeX < turned.width, codeY >= 0, codeY < turned.height {
                    let value = Int(turned[codeX, codeY])
                    level = value == 150 ? level : value
                }
                state = state &* 1_103_515_245 &+ 12345
                level += Int((state >> 16) % 25) - 12
                frame[x, y] = UInt8(clamping: level)
            }
        }
        return frame
    }

    /// `image` averaged over a run of `width` pixels along its rows: upright bars, moving sideways.
    static func smearedAcross(_ image: GreyImage, by width: Int) -> GreyImage {
        var out = image
        for y in 0..<image.height {
            for x in 0..<image.width {
                var sum = 0
                for dx in -(width / 2)...(width / 2) { sum += Int(image[min(image.width - 1, max(0, x + dx)), y]) }
                out[x, y] = UInt8(sum / (width / 2 * 2 + 1))
            }
        }
        return out
    }
}
