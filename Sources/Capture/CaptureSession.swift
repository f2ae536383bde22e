import Imaging

/// One open streaming session of a camera: what ``V4L2Camera`` reads frames from, and opens again
/// through its ``V4L2Camera/Opener`` when the camera is missing or lost. A V4L2 device's session
/// (``V4L2Camera/openDevice``) by default; another kind of camera's, or a test's, the same way.
///
///     let camera = V4L2Camera.waitingFor(device: "/dev/video0", onState: { print($0) }, open: V4L2Camera.openDevice)
public protocol CaptureSession: AnyObject, Sendable {
    /// The format the camera agreed to.
    var format: PixelFormat { get }
    /// The frame size the camera agreed to, in pixels.
    var width: Int { get }
    var height: Int { get }
    /// Waits a while (a V4L2 device: up to 2 s) for the next frame. Called by one thread at a time.
    func capture() -> CaptureResult
}

/// What one wait of a ``CaptureSession`` got.
public enum CaptureResult: Sendable {
    /// A frame, with the camera's timestamp in seconds (0 when it has none: the capture loop's
    /// clock stamps it).
    case frame(GreyImage, timestamp: Double)
    /// A frame that could not be read (a corrupt MJPEG frame): skipped and counted.
    case corrupt
    /// No frame came in time.
    case timeout
    /// The camera is gone (unplugged), and why: the session is let go and opened again with backoff.
    case gone(String)
}
