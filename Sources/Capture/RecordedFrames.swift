import Foundation
import Imaging

/// Recorded frames: the images of a folder in sorted order, stamped at `fps` (frame n at n / fps
/// seconds), every one delivered (a replay never drops a frame, so it gives the same scans at any
/// speed). With `loop`, the folder repeats and time goes on, in real time: frame n is delivered
/// no sooner than n / fps seconds after the start, as a camera would (without `loop` a replay runs
/// as fast as it can, for tests and benchmarks). An unreadable image is skipped and counted.
///
///     let source = try RecordedFrames(folder: "SampleImages/degraded", fps: 30)
///     while let frame = try source.nextFrame() { ... }
public final class RecordedFrames: FrameSource {
    public let files: [String]
    public let fps: Double
    public let loop: Bool
    /// The rate frames are stamped at unless told otherwise: a webcam's usual 30 per second.
    public static let defaultFramesPerSecond = 30
    private let loader = ImageLoader()
    private let start = Date()
    private var position = 0
    public private(set) var skippedFrames = 0
    public let droppedFrames = 0

    public init(folder: String, fps: Double = Double(defaultFramesPerSecond), loop: Bool = false) throws(CaptureError) {
        guard fps > 0 else { throw .badOption("the frame rate must be more than 0, not \(fps)") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw .noSuchFolder(folder)
        }
        guard isDirectory.boolValue else {
            throw .badOption(
                "\(folder) is a file: --frames takes the folder that holds the frames (PNG, JPEG, PGM or PPM)")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        files = names.filter { ImageFormat.fileExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted().map { (folder as NSString).appendingPathComponent($0) }
        guard !files.isEmpty else { throw .noFrames(folder) }
        self.fps = fps
        self.loop = loop
    }

    public func nextFrame() throws -> Frame? {
        while true {
            if position >= files.count && !loop { return nil }
            let index = position
            position += 1
            let time = Double(index) / fps
            if loop { waitUntil(time) }
            do {
                let image = try loader.load(path: files[index % files.count])
                return Frame(image: image, time: time, index: index, capturedAt: start.addingTimeInterval(time))
            } catch {
                skippedFrames += 1
            }
        }
    }

    public func close() {}

    /// Sleeps until `time` seconds after the start (a looping replay keeps the camera's pace
    /// instead of spinning a core).
    private func waitUntil(_ time: Double) {
        let due = start.addingTimeInterval(time)
        let wait = due.timeIntervalSinceNow
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    }
}

/// Why a frame source could not start, with what to do.
public enum CaptureError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchFolder(String)
    case noFrames(String)
    case badOption(String)
    case noSuchDevice(String)
    /// A handheld scanner's device that is not there (unplugged, or a wrong name).
    case noSuchScanner(String)
    case notACaptureDevice(String)
    case busy(String)
    case permissionDenied(String)
    case noUsableFormat(String, offered: [String])
    case deviceFailed(String, reason: String)
    /// An input device that cannot be a handheld scanner.
    case notAScanner(String, reason: String)

    public var description: String {
        switch self {
        case .noSuchFolder(let folder): "\(folder): no such folder of frames"
        case .noFrames(let folder): "\(folder): no PNG, JPEG, PGM or PPM images in it"
        case .badOption(let message): message
        case .noSuchDevice(let device):
            "\(device): no such device (is the camera plugged in? `scanpick devices` lists them)"
        case .noSuchScanner(let device):
            "\(device): no such handheld scanner (is it plugged in? `scanpick devices` lists the scanners, under the names to put in \"scanners\")"
        case .notACaptureDevice(let device): "\(device) is not a video capture device (try another /dev/videoN)"
        case .busy(let device): "\(device) is busy: another program has it open or grabbed (try `fuser \(device)`)"
        case .permissionDenied(let device):
            "\(device): permission denied (add the user to the '\(Self.group(of: device))' group: sudo usermod -aG \(Self.group(of: device)) $USER)"
        case .noUsableFormat(let device, let offered):
            "\(device) offers no format scanpick can read (offered: \(offered.joined(separator: ", ")))"
        case .deviceFailed(let device, let reason): "\(device): \(reason)"
        case .notAScanner(let device, let reason):
            "\(device) is not a handheld scanner: \(reason) (/dev/input/by-id/*-event-kbd names scanners)"
        }
    }

    /// The group that owns such devices on Debian: cameras are `video`'s, keyboards and scanners `input`'s.
    static func group(of device: String) -> String {
        device.hasPrefix("/dev/input") || device.hasPrefix("/dev/scanpick/") ? "input" : "video"
    }
}
