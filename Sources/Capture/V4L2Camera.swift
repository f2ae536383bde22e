internal import CThreadName
import CV4L2
import Foundation
import Imaging
import Logging
import Synchronization
import Waking

/// A V4L2 camera as a ``FrameSource`` with the latest-frame policy: a capture thread keeps only the
/// newest frame, so the decoder always works on what is in front of the camera now; frames that
/// arrive while it decodes are dropped and counted (latency never builds up). A corrupt MJPEG frame
/// is skipped and counted. A camera that disappears (unplugged: ENODEV or EIO) is reported and
/// reopened with backoff while the station keeps running;
/// ``waitingFor(device:width:height:fps:logger:onState:heartbeat:open:)`` does the same for a camera
/// that is not there yet at start. Its sessions are a V4L2 device's (``openDevice``) unless an
/// ``Opener`` of another kind of camera's, or a test's, is given. ``close()`` ends its capture
/// thread and lets go of the device before it returns.
///
///     let camera = try V4L2Camera(device: "/dev/video0", width: 1280, height: 720, fps: 30)
///     while let frame = try camera.nextFrame() { ... }
public final class V4L2Camera: FrameSource, @unchecked Sendable {
    private let slot = LatestFrameSlot()
    private let skipped = Mutex(0)
    private let agreed = Mutex<(format: PixelFormat, width: Int, height: Int)?>(nil)

    public let device: String
    private let requested: (width: Int, height: Int, fps: Int)
    private let logger: Logger
    private let onState: @Sendable (CameraState) -> Void
    private let heartbeat: @Sendable (_ busy: Bool) -> Void
    private let open: Opener
    /// The first wait before the device is opened again, in seconds (doubled each failure, to 30).
    private let firstBackoff: Double
    /// Set by ``close()``; under this lock the capture thread reports a state, so none comes after.
    private let closed = Mutex(false)
    /// Rung by ``close()`` to cut a backoff short.
    private let wake = WakeUp()
    /// Signalled as the capture thread ends (and again by each ``close()`` that waited for it).
    private let ended = DispatchSemaphore(value: 0)
    /// The capture thread, so that a close on it (its last reference let go there) does not wait for itself.
    private let captureThread = Mutex<pthread_t?>(nil)
    private let threadEnded = Atomic(false)

    /// Opens a camera's streaming session (`device`, and the width, height and frame rate asked
    /// for), or says why it cannot; called again with backoff while it cannot.
    public typealias Opener =
        @Sendable (_ device: String, _ width: Int, _ height: Int, _ fps: Int) throws(CaptureError)
        -> any CaptureSession

    /// Opens a V4L2 device: negotiates the cheapest format scanpick reads and the size closest to the
    /// one asked for, and starts streaming.
    public static let openDevice: Opener = { device, width, height, fps throws(CaptureError) in
        try Stream(device: device, width: width, height: height, fps: fps)
    }

    /// What the camera is doing, for a person.
    public enum CameraState: Sendable, Equatable {
        /// Frames are coming: the format and size the camera agreed to ("YUYV 1280x720").
        case capturing(String)
        /// No frames: why (not found, busy, lost), while it is reopened with backoff.
        case unavailable(String)
    }

    /// The format and size the camera agreed to (nil while it is unavailable).
    public var negotiated: (format: PixelFormat, width: Int, height: Int)? { agreed.withLock { $0 } }

    /// Opens and starts the camera; `logger` hears about disconnects and reconnects (`camera`).
    public convenience init(
        device: String, width: Int = 1280, height: Int = 720, fps: Int = 30, logger: Logger = .discarding
    ) throws(CaptureError) {
        let stream = try Stream(device: device, width: width, height: height, fps: fps)
        self.init(
            device: device, requested: (width, height, fps), logger: logger, onState: { _ in }, heartbeat: { _ in },
            open: Self.openDevice, first: stream, firstBackoff: 1)
    }

    /// The camera, open at once if it can be, or else reopened with backoff until it can (it is
    /// missing, busy or unusable now): never fails, so the station keeps running without it.
    /// `onState` hears whether it captures, at once and on every change; `heartbeat` hears `true` on
    /// each turn of the capture loop (a frame or a 2-second poll timeout) and `false` while it
    /// waits out a backoff (for a watchdog: a capture loop that stops turning is wedged). `open`
    /// opens the device's session, at once and after each backoff (by default a V4L2 device's).
    /// `onState` is called under the lock ``close()`` takes (so that none comes after it): it must
    /// not close the camera.
    public static func waitingFor(
        device: String, width: Int = 1280, height: Int = 720, fps: Int = 30,
        logger: Logger = .discarding, onState: @escaping @Sendable (CameraState) -> Void,
        heartbeat: @escaping @Sendable (_ busy: Bool) -> Void = { _ in }, open: @escaping Opener = openDevice
    ) -> V4L2Camera {
        waitingFor(
            device: device, width: width, height: height, fps: fps, logger: logger, onState: onState,
            heartbeat: heartbeat, open: open, firstBackoff: 1)
    }

    /// As the public one, with the first backoff in seconds (tests make it long or short).
    static func waitingFor(
        device: String, width: Int = 1280, height: Int = 720, fps: Int = 30, logger: Logger = .discarding,
        onState: @escaping @Sendable (CameraState) -> Void, heartbeat: @escaping @Sendable (_ busy: Bool) -> Void,
        open: @escaping Opener, firstBackoff: Double
    ) -> V4L2Camera {
        var first: (any CaptureSession)?
        do {
            first = try open(device, width, height, fps)
        } catch {
            onState(.unavailable(error.description))
            report(logger, "\(error); trying again with backoff")
        }
        return V4L2Camera(
            device: device, requested: (width, height, fps), logger: logger, onState: onState, heartbeat: heartbeat,
            open: open, first: first, firstBackoff: firstBackoff)
    }

    /// Says what happened to the camera (`camera`: lost, back, missing), at `warning`.
    static func report(_ logger: Logger, _ message: String) { logger.warning("camera", ["message": .string(message)]) }

    private init(
        device: String, requested: (width: Int, height: Int, fps: Int), logger: Logger,
        onState: @escaping @Sendable (CameraState) -> Void, heartbeat: @escaping @Sendable (_ busy: Bool) -> Void,
        open: @escaping Opener, first stream: (any CaptureSession)?, firstBackoff: Double
    ) {
        self.device = device
        self.requested = requested
        self.logger = logger
        self.onState = onState
        self.heartbeat = heartbeat
        self.open = open
        self.firstBackoff = firstBackoff
        if let stream { _ = started(stream) }
        // Hand the stream over through a box the capture loop empties: a closure capturing it would
        // keep it (and the device's file descriptor) alive for the thread's whole life, so an
        // unplugged camera could never be let go of (found by scripts/test-v4l2-vm).
        let handoff = Mutex<(any CaptureSession)?>(stream)
        let thread = Thread { [self] in
            captureThread.withLock { $0 = pthread_self() }
            _ = scanpick_name_this_thread("capture")  // for top -H and perf
            captureLoop(first: handoff.withLock { $0.take() })
            threadEnded.store(true, ordering: .releasing)
            ended.signal()
        }
        thread.name = "capture"
        thread.start()
    }

    /// Records a stream that now captures; false (and nothing said) once the camera is closed.
    private func started(_ stream: any CaptureSession) -> Bool {
        closed.withLock { closed in
            guard !closed else { return false }
            agreed.withLock { $0 = (stream.format, stream.width, stream.height) }
            onState(.capturing("\(stream.format) \(stream.width)x\(stream.height)"))
            return true
        }
    }

    /// Records a stream that was lost, unless the camera is closed.
    private func lost(_ reason: String) {
        closed.withLock { closed in
            guard !closed else { return }
            Self.report(logger, "\(device): camera lost (\(reason)); reopening with backoff")
            agreed.withLock { $0 = nil }
            onState(.unavailable("\(device): camera lost (\(reason))"))
        }
    }

    /// Whether ``close()`` has been called.
    var isClosed: Bool { closed.withLock { $0 } }

    /// Whether the capture thread has ended (for tests).
    var hasEnded: Bool { threadEnded.load(ordering: .acquiring) }

    public var droppedFrames: Int { slot.droppedFrames }
    public var skippedFrames: Int { skipped.withLock { $0 } }

    /// The newest frame (waiting for one); nil once closed.
    public func nextFrame() throws -> Frame? { slot.take() }

    /// Stops capturing: a waiting ``nextFrame()`` returns nil, a backoff is cut short, and the
    /// capture thread ends and lets go of the device before this returns (at most one capture's
    /// wait: 2 s for a V4L2 device that sends nothing), unless called on that thread. From then on
    /// the camera reports no state and opens nothing.
    public func close() {
        closed.withLock { $0 = true }
        slot.close()
        wake.ring()
        let onItself = captureThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        guard !onItself else { return }
        ended.wait()
        ended.signal()  // for the next close (deinit's, or another thread's)
    }

    deinit { close() }

    private func captureLoop(first: consuming (any CaptureSession)?) {
        var stream = consume first  // no other binding may keep a lost stream (and its descriptor) alive
        var backoff = firstBackoff
        let clockStart = Date()
        var index = 0
        while !isClosed {
            guard let current = stream else {
                heartbeat(false)
                wake.wait(timeout: .seconds(backoff))  // close() rings
                guard !isClosed else { break }
                heartbeat(true)
                do {
                    let reopened = try open(device, requested.width, requested.height, requested.fps)
                    // Closed while it opened: let the device go at once (leaving the loop drops it).
                    guard started(reopened) else { break }
                    stream = reopened
                    Self.report(logger, "\(device): camera back, capturing again")
                    backoff = firstBackoff
                } catch {
                    backoff = min(backoff * 2, 30)
                }
                continue
            }
            heartbeat(true)
            switch current.capture() {
            case .frame(let image, let timestamp):
                let frameTime = timestamp > 0 ? timestamp : Date().timeIntervalSince(clockStart)
                index += 1
                slot.put(Frame(image: image, time: frameTime, index: index, capturedAt: Date()))
            case .corrupt:
                skipped.withLock { $0 += 1 }
            case .timeout:
                continue
            case .gone(let reason):
                lost(reason)
                stream = nil
            }
        }
        heartbeat(false)
        stream = nil
    }

    /// One streaming session: the negotiated format and the mapped buffers. Owned by one thread at a
    /// time: made by `init` (or a reconnect), then used only by the capture thread; hence
    /// `@unchecked Sendable` for the one handoff.
    private final class Stream: CaptureSession, @unchecked Sendable {
        let device: V4L2Device
        let format: PixelFormat
        let width: Int
        let height: Int
        let stride: Int
        private var buffers: [UnsafeMutableRawPointer?]
        private var lengths: [Int]
        private let count: UInt32
        private let jpeg = ImageLoader()

        init(device path: String, width: Int, height: Int, fps: Int) throws(CaptureError) {
            device = try V4L2Device(path: path)
            let offered = device.formats()
            guard let choice = PixelFormat.cheapest(of: offered.map(\.format)) else {
                throw .noUsableFormat(path, offered: offered.map { $0.format.description })
            }
            // The closest size the camera has to the one asked for (a range: ask for it; the driver adjusts).
            let (listed, isRange) = device.sizes(of: choice)
            let sizes = listed.filter { Self.usableSides.contains($0.width) && Self.usableSides.contains($0.height) }
            let target =
                isRange
                ? (width: width, height: height)
                : sizes.min { abs($0.width * $0.height - width * height) < abs($1.width * $1.height - width * height) }
                    ?? (width: width, height: height)
            var fourcc: UInt32 = 0
            var gotWidth: UInt32 = 0
            var gotHeight: UInt32 = 0
            var bytesPerLine: UInt32 = 0
            var sizeImage: UInt32 = 0
            let set = scanpick_v4l2_set_format(
                device.descriptor, choice.fourcc, UInt32(target.width), UInt32(target.height), &fourcc, &gotWidth,
                &gotHeight, &bytesPerLine, &sizeImage)
            guard set == 0 else { throw V4L2Device.error(-set, path) }
            format = PixelFormat(fourcc: fourcc, emulated: choice.emulated)
            guard format.lumaPath != nil else { throw .noUsableFormat(path, offered: [format.description]) }
            // What the driver answered is outside data too: a size no camera has is refused, not multiplied.
            guard Self.usableSides.contains(Int(gotWidth)), Self.usableSides.contains(Int(gotHeight)),
                Int(bytesPerLine) <= Int(gotWidth) * 8
            else {
                throw .deviceFailed(
                    path,
                    reason:
                        "the driver set an unusable frame size \(gotWidth)x\(gotHeight) (\(bytesPerLine) bytes a line)")
            }
            self.width = Int(gotWidth)
            self.height = Int(gotHeight)
            stride = Int(bytesPerLine)
            _ = scanpick_v4l2_set_fps(device.descriptor, UInt32(fps))
            count = 4
            buffers = Array(repeating: nil, count: 4)
            lengths = Array(repeating: 0, count: 4)
            var got: UInt32 = 0
            let started = scanpick_v4l2_start(device.descriptor, count, &buffers, &lengths, &got)
            guard started == 0 else {
                scanpick_v4l2_stop(device.descriptor, &buffers, &lengths, got)
                throw V4L2Device.error(-started, path)
            }
        }

        deinit { scanpick_v4l2_stop(device.descriptor, &buffers, &lengths, count) }

        /// Frame sides in pixels that any real camera falls within.
        static let usableSides = 1...16_384

        func capture() -> CaptureResult {
            let ready = scanpick_v4l2_poll(device.descriptor, 2000)
            if ready == 0 { return .timeout }
            if ready < 0 { return .gone(String(cString: strerror(-ready))) }
            var index: UInt32 = 0
            var used: UInt32 = 0
            var timestamp = 0.0
            let dequeued = scanpick_v4l2_dequeue(device.descriptor, &index, &used, &timestamp)
            if dequeued == -EAGAIN { return .timeout }
            if dequeued < 0 { return .gone(String(cString: strerror(-dequeued))) }
            defer { _ = scanpick_v4l2_requeue(device.descriptor, index) }
            guard Int(index) < buffers.count, let base = buffers[Int(index)] else { return .corrupt }
            let bytes = UnsafeRawBufferPointer(start: base, count: min(Int(used), lengths[Int(index)]))
            guard
                let image = Luma.grey(
                    from: bytes, format: format, width: width, height: height, stride: stride, jpeg: jpeg)
            else { return .corrupt }
            return .frame(image, timestamp: timestamp)
        }
    }
}
