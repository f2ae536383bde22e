import Dispatch
import Foundation
import Imaging
import Synchronization
import TestSupport
import Testing

@testable import Capture

/// A closed camera is done: its capture thread has ended and let go of the device when `close()`
/// returns, a backoff does not hold the close up, and nothing is opened or reported afterwards (a
/// stale thread once reopened the camera after scanning was switched off, and said it captured).
@Suite(.timeLimit(.minutes(1))) struct CameraCloseTests {
    @Test func closingDuringALongBackoffReturnsAtOnceAndOpensNothingMore() throws {
        let device = FakeDevice(failures: .max)
        let backingOff = DispatchSemaphore(value: 0)
        let camera = V4L2Camera.waitingFor(
            device: "/dev/video-test", onState: device.record, heartbeat: { busy in if !busy { backingOff.signal() } },
            open: device.open, firstBackoff: 600)
        #expect(backingOff.wait(timeout: .now() + 10) == .success, "the capture thread never backed off")
        let started = ContinuousClock.now
        camera.close()
        #expect(ContinuousClock.now - started < .seconds(5), "close waited out the backoff")
        #expect(camera.hasEnded)
        #expect(device.opens == 1)
        #expect(device.states == [.unavailable(CaptureError.noSuchDevice("/dev/video-test").description)])
        #expect(try camera.nextFrame() == nil)
    }

    /// Closed while the device was being opened again: the session opened is let go at once, and
    /// the camera does not say it captures.
    @Test func aCameraClosedWhileItReopensLetsTheDeviceGoAndSaysNothing() async throws {
        let device = FakeDevice(failures: 1, holdSecondOpen: true)
        let camera = V4L2Camera.waitingFor(
            device: "/dev/video-test", onState: device.record, heartbeat: { _ in }, open: device.open,
            firstBackoff: 0.001)
        // The waits and close() (which joins the capture thread, held in its open) run on threads of
        // their own: on the task pool they would wait for, or starve, the rest of a parallel suite.
        let (reopened, closedFirst, closeReturned) = try await onOwnThread { () -> (Bool, Bool, Bool) in
            let reopened = device.opening.wait(timeout: .now() + 10) == .success
            let closed = DispatchSemaphore(value: 0)
            Thread {
                camera.close()
                closed.signal()
            }.start()
            let deadline = ContinuousClock.now + .seconds(10)
            while !camera.isClosed, ContinuousClock.now < deadline { usleep(1000) }  // close() has begun
            let closedFirst = camera.isClosed
            device.letOpenFinish.signal()
            return (reopened, closedFirst, closed.wait(timeout: .now() + 10) == .success)
        }
        #expect(reopened, "the camera was never opened again")
        #expect(closedFirst)
        #expect(closeReturned)
        #expect(camera.hasEnded)
        #expect(device.opens == 2)
        #expect(device.liveSessions == 0, "the session opened as the camera closed is still held")
        #expect(!device.states.contains { if case .capturing = $0 { true } else { false } }, "\(device.states)")
    }

    /// A capturing camera's thread has ended when close() returns, and the device is let go.
    @Test func closingACapturingCameraEndsItsThread() throws {
        let device = FakeDevice(failures: 0)
        let camera = V4L2Camera.waitingFor(
            device: "/dev/video-test", onState: device.record, heartbeat: { _ in }, open: device.open,
            firstBackoff: 0.001)
        #expect(try camera.nextFrame() != nil)
        camera.close()
        #expect(camera.hasEnded)
        #expect(device.liveSessions == 0)
        camera.close()  // a second close returns too
        #expect(device.states == [.capturing("GREY 4x4")])
    }
}

/// A camera device: its first `failures` openings fail as a missing device's do; the second
/// opening can be held until `letOpenFinish` is signalled (`opening` says it has begun). Its
/// sessions send a small frame every few milliseconds.
private final class FakeDevice: Sendable {
    private let failures: Int
    private let holdSecondOpen: Bool
    private let counts = Mutex((opens: 0, live: 0))
    private let recorded = Mutex<[V4L2Camera.CameraState]>([])
    let opening = DispatchSemaphore(value: 0)
    let letOpenFinish = DispatchSemaphore(value: 0)

    init(failures: Int, holdSecondOpen: Bool = false) {
        self.failures = failures
        self.holdSecondOpen = holdSecondOpen
    }

    var opens: Int { counts.withLock { $0.opens } }
    /// Sessions opened and not yet let go of.
    var liveSessions: Int { counts.withLock { $0.live } }
    var states: [V4L2Camera.CameraState] { recorded.withLock { $0 } }

    var record: @Sendable (V4L2Camera.CameraState) -> Void {
        { [self] state in recorded.withLock { $0.append(state) } }
    }

    var open: V4L2Camera.Opener {
        { [self] device, _, _, _ throws(CaptureError) in
            let number = counts.withLock { counts in
                counts.opens += 1
                return counts.opens
            }
            guard number > failures else { throw .noSuchDevice(device) }
            if holdSecondOpen, number == 2 {
                opening.signal()
                _ = letOpenFinish.wait(timeout: .now() + 10)
            }
            counts.withLock { $0.live += 1 }
            return Session(onRelease: { [self] in counts.withLock { $0.live -= 1 } })
        }
    }

    private final class Session: CaptureSession {
        let format = PixelFormat(fourcc: 0x5945_5247)  // "GREY"
        let width = 4
        let height = 4
        private let onRelease: @Sendable () -> Void

        init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }

        deinit { onRelease() }

        func capture() -> CaptureResult {
            Thread.sleep(forTimeInterval: 0.005)  // a camera's frame interval, not a wait for an event
            return .frame(GreyImage(width: 4, height: 4, filledWith: 128), timestamp: 0)
        }
    }
}
