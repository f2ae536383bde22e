import Foundation
import Imaging

/// One captured frame: the grey picture, when it was captured, and its number in the stream.
public struct Frame: Sendable {
    public var image: GreyImage
    /// Capture time in seconds since the source started; debounce runs on this, never the wall clock.
    public var time: Double
    /// The frame's number from the source (gaps mean frames were dropped).
    public var index: Int
    /// The wall-clock moment of capture, sent as the scan's `scannedAt`.
    public var capturedAt: Date

    public init(image: GreyImage, time: Double, index: Int, capturedAt: Date) {
        self.image = image
        self.time = time
        self.index = index
        self.capturedAt = capturedAt
    }
}

/// Where frames come from: a camera, or recorded images. `nextFrame()` blocks until a frame is ready
/// and returns nil when the source has ended; a camera returns the newest frame, dropping older ones.
public protocol FrameSource: AnyObject {
    func nextFrame() throws -> Frame?
    /// Frames captured but never handed out (a camera's latest-frame policy), so far.
    var droppedFrames: Int { get }
    /// Frames that could not be read (a corrupt MJPEG frame, an unreadable file) and were skipped.
    var skippedFrames: Int { get }
    func close()
}
