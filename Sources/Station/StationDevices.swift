import Capture

/// How the station opens its devices: cameras through V4L2 and handheld scanners through evdev
/// (``system``), or another kind of hardware's, or a test's. ``StationRuntime`` treats what these
/// open as it treats a real device: one that cannot be opened is shown and looked for again with
/// backoff, and its frames and codes go through the same scan loop.
///
///     let runtime = StationRuntime(configPath: path, station: station, devices: .system, output: { print($0) }, logger: logger)
public struct StationDevices: Sendable {
    /// Opens a camera's streaming session (`camera.device` or `--device`, and the size and frame
    /// rate of `camera`).
    public var openCamera: V4L2Camera.Opener
    /// Opens and grabs a handheld scanner of `scanners`, decoding its keys with that entry's options.
    public var openScanner:
        @Sendable (_ device: String, _ options: KeyCodeDecoder.Options) throws(CaptureError) -> any CodeSource

    public init(
        openCamera: @escaping V4L2Camera.Opener,
        openScanner:
            @escaping @Sendable (_ device: String, _ options: KeyCodeDecoder.Options) throws(CaptureError)
            -> any CodeSource
    ) {
        self.openCamera = openCamera
        self.openScanner = openScanner
    }

    /// The machine's own: V4L2 cameras and evdev scanners.
    public static let system = StationDevices(
        openCamera: V4L2Camera.openDevice,
        openScanner: { device, options throws(CaptureError) in try HandheldScanner(device: device, options: options) })
}
