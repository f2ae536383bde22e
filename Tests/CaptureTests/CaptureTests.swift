import CV4L2
import Dispatch
import Foundation
import Imaging
import Synchronization
import TestSupport
import Testing

@testable import Capture

@Suite struct PixelFormatTests {
    let grey = PixelFormat(fourcc: scanpick_v4l2_fmt_grey)
    let yuyv = PixelFormat(fourcc: scanpick_v4l2_fmt_yuyv)
    let nv12 = PixelFormat(fourcc: scanpick_v4l2_fmt_nv12)
    let mjpeg = PixelFormat(fourcc: scanpick_v4l2_fmt_mjpeg)
    let emulatedYU12 = PixelFormat(fourcc: scanpick_v4l2_fmt_yuv420, emulated: true)
    let rgb3 = PixelFormat(fourcc: 0x3342_4752)  // "RGB3": not read directly

    @Test func picksTheCheapestPathToGrey() {
        #expect(PixelFormat.cheapest(of: [mjpeg, yuyv, grey]) == grey)
        #expect(PixelFormat.cheapest(of: [mjpeg, yuyv, nv12]) == nv12)
        #expect(PixelFormat.cheapest(of: [mjpeg, yuyv]) == yuyv)
        #expect(PixelFormat.cheapest(of: [rgb3, mjpeg, emulatedYU12]) == mjpeg)
        #expect(PixelFormat.cheapest(of: [rgb3, emulatedYU12]) == emulatedYU12)
        #expect(PixelFormat.cheapest(of: [rgb3]) == nil)
        #expect(yuyv.description == "YUYV")
        #expect(mjpeg.description == "MJPG")
    }

    @Test func takesLumaFromPackedAndPlanarFramesWithStrides() {
        // 2×2 YUYV with 2 bytes of padding per line: Y at even bytes.
        let yuyvBytes: [UInt8] = [10, 128, 20, 128, 0, 0, 30, 128, 40, 128, 0, 0]
        let fromYUYV = yuyvBytes.withUnsafeBytes { Luma.packed($0, width: 2, height: 2, stride: 6, lumaFirst: true) }
        #expect(fromYUYV == [10, 20, 30, 40])
        let uyvyBytes: [UInt8] = [128, 11, 128, 22, 128, 33, 128, 44]
        let fromUYVY = uyvyBytes.withUnsafeBytes { Luma.packed($0, width: 2, height: 2, stride: 4, lumaFirst: false) }
        #expect(fromUYVY == [11, 22, 33, 44])
        // Planar: the Y plane with a stride of 3, then chroma that must be ignored.
        let planar: [UInt8] = [1, 2, 99, 3, 4, 99, 200, 200]
        #expect(planar.withUnsafeBytes { Luma.firstPlane($0, width: 2, height: 2, stride: 3) } == [1, 2, 3, 4])
        // A short buffer is refused, not read past its end.
        #expect(
            [UInt8](repeating: 0, count: 3).withUnsafeBytes { Luma.firstPlane($0, width: 2, height: 2, stride: 2) }
                == nil)
    }
}

@Suite struct CameraErrorTests {
    @Test func aMissingDeviceOrANonCameraFileIsAClearError() {
        #expect(throws: CaptureError.noSuchDevice("/dev/video-nonexistent")) {
            try V4L2Camera(device: "/dev/video-nonexistent")
        }
        #expect(throws: CaptureError.notACaptureDevice("/dev/null")) { try V4L2Camera(device: "/dev/null") }
        #expect(CaptureError.busy("/dev/video0").description.contains("fuser /dev/video0"))
        #expect(CaptureError.permissionDenied("/dev/video0").description.contains("'video' group"))
    }

    /// A scanner that is not there is spoken of as a scanner (it once asked whether the camera was
    /// plugged in), and one named by the package's udev rule belongs to the `input` group.
    @Test func aMissingScannerIsCalledAScanner() {
        #expect(throws: CaptureError.noSuchScanner("/dev/scanpick/scanner-9")) {
            try HandheldScanner(device: "/dev/scanpick/scanner-9")
        }
        let missing = CaptureError.noSuchScanner("/dev/scanpick/scanner-9").description
        #expect(missing.contains("no such handheld scanner") && !missing.contains("camera"))
        #expect(CaptureError.permissionDenied("/dev/scanpick/scanner-0").description.contains("'input' group"))
    }

    /// Scanners are listed by the names station.json should use: the udev rule's first, then USB
    /// keyboard-class devices by id, each event device once, named as the kernel names it.
    @Test func scannersAreListedByTheirStableNames() throws {
        let root = try TemporaryDirectory()
        let manager = FileManager.default
        for folder in [
            "dev/input/by-id", "dev/scanpick", "sys/class/input/event3/device", "sys/class/input/event5/device",
        ] {
            try manager.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
        }
        _ = try root.write("dev/input/event3", text: "")
        _ = try root.write("dev/input/event5", text: "")
        _ = try root.write("sys/class/input/event3/device/name", text: "Honeywell Imaging & Mobility 1900\n")
        _ = try root.write("sys/class/input/event5/device/name", text: "Cherry keyboard\n")
        try manager.createSymbolicLink(
            atPath: root.file("dev/scanpick/scanner-0"), withDestinationPath: "../input/event3")
        try manager.createSymbolicLink(
            atPath: root.file("dev/input/by-id/usb-Honeywell_1900-event-kbd"), withDestinationPath: "../event3")
        try manager.createSymbolicLink(
            atPath: root.file("dev/input/by-id/usb-Cherry-event-kbd"), withDestinationPath: "../event5")
        try manager.createSymbolicLink(
            atPath: root.file("dev/input/by-id/usb-Cherry-event-mouse"), withDestinationPath: "../event5")
        let found = ScannerDescription.all(dev: root.file("dev"), sys: root.file("sys"))
        #expect(
            found.map(\.path) == [
                root.file("dev/scanpick/scanner-0"), root.file("dev/input/by-id/usb-Cherry-event-kbd"),
            ])
        #expect(found.map(\.name) == ["Honeywell Imaging & Mobility 1900", "Cherry keyboard"])
        #expect(found.first?.device.hasSuffix("/dev/input/event3") == true)
        #expect(ScannerDescription.all(dev: root.file("nothing"), sys: root.file("sys")) == [])
    }

    @Test func theStationSaysWhichDeviceFailed() async throws {
        let result = try await ProcessRunner.scanpick(["devices"])
        if result.status == 1 {
            #expect(result.standardOutput.contains("no video capture devices found"))
            #expect(result.standardOutput.contains("no handheld scanners found"))
        }
    }
}

@Suite struct RecordedFramesTests {
    @Test func stampsFramesAtTheFrameRateAndSkipsUnreadableOnes() async throws {
        let folder = try TemporaryDirectory()
        let png = try Repository.sampleBytes("clean/ean8.png")
        try folder.write("1.png", bytes: png)
        try folder.write("2.png", text: "broken")
        try folder.write("3.png", bytes: png)
        try folder.write("notes.txt", text: "not a frame")
        let source = try RecordedFrames(folder: folder.path, fps: 10)
        let first = try #require(try source.nextFrame())
        let second = try #require(try source.nextFrame())
        #expect(try source.nextFrame() == nil)
        #expect(first.time == 0)
        #expect(second.index == 2)
        #expect(abs(second.time - 0.2) < 1e-9)
        #expect(source.skippedFrames == 1)
        #expect(throws: CaptureError.noSuchFolder(folder.file("none"))) {
            try RecordedFrames(folder: folder.file("none"))
        }
        let file = try folder.write("station.json", text: "{}")
        #expect {
            try RecordedFrames(folder: file)
        } throws: { error in
            String(describing: error).contains("is a file: --frames takes the folder that holds the frames")
        }
        let started = Date()
        let looping = try RecordedFrames(folder: folder.path, fps: 10, loop: true)
        for _ in 0..<5 { _ = try looping.nextFrame() }
        // Indexes 0, 2, 3, 5, 6 so far; 7 is the broken file again, so the next is 8.
        #expect(try looping.nextFrame()?.index == 8)
        // A looping replay keeps the camera's pace: frame 8 at 10 fps comes no sooner than 0.8 s in.
        #expect(Date().timeIntervalSince(started) >= 0.79)
    }
}

@Suite struct LatestFrameSlotTests {
    func frame(_ index: Int) -> Frame {
        Frame(
            image: GreyImage(width: 1, height: 1, filledWith: 0), time: Double(index), index: index, capturedAt: Date())
    }

    @Test func theDecoderGetsTheNewestFrameAndOlderOnesAreCountedAsDropped() {
        let slot = LatestFrameSlot()
        for index in 1...5 { slot.put(frame(index)) }
        #expect(slot.take()?.index == 5)
        #expect(slot.droppedFrames == 4)
        slot.put(frame(6))
        #expect(slot.take()?.index == 6)
        #expect(slot.droppedFrames == 4)
    }

    @Test func closingWakesAWaitingDecoder() async throws {
        let slot = LatestFrameSlot()
        // A decoder blocks a thread of its own (started at once, whatever the task pool is doing).
        let tookNothing = Atomic(false)
        let ended = DispatchSemaphore(value: 0)
        Thread {
            tookNothing.store(slot.take() == nil, ordering: .releasing)
            ended.signal()
        }.start()
        let deadline = ContinuousClock.now + .seconds(90)
        while slot.waitingTakers == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(slot.waitingTakers == 1)  // the decoder is waiting: now close
        slot.close()
        #expect(try await onOwnThread { ended.wait(timeout: .now() + 10) } == .success)
        let nothing = tookNothing.load(ordering: .acquiring)
        #expect(nothing)
        slot.put(frame(1))
        #expect(slot.take() == nil)
    }
}

@Suite struct FrameConversionTests {
    @Test func mjpegFramesAreDecodedToGreyAndACorruptOneIsSkipped() async throws {
        let mjpeg = PixelFormat(fourcc: scanpick_v4l2_fmt_mjpeg)
        let jpeg = try Repository.sampleBytes("degraded/ean13-small.jpg")
        let good = jpeg.withUnsafeBytes {
            Luma.grey(from: $0, format: mjpeg, width: 1280, height: 720, stride: 0, jpeg: ImageLoader())
        }
        #expect(good?.width == 1280)
        #expect(good?.height == 720)
        let cut = Array(jpeg.prefix(jpeg.count / 3))
        #expect(
            cut.withUnsafeBytes {
                Luma.grey(from: $0, format: mjpeg, width: 1280, height: 720, stride: 0, jpeg: ImageLoader())
            } == nil)
    }

    @Test func unreadableFormatsAndShortBuffersGiveNoFrame() {
        let rgb = PixelFormat(fourcc: 0x3342_4752)
        let bytes = [UInt8](repeating: 0, count: 12)
        #expect(
            bytes.withUnsafeBytes {
                Luma.grey(from: $0, format: rgb, width: 2, height: 2, stride: 6, jpeg: ImageLoader())
            } == nil)
        let yuyv = PixelFormat(fourcc: scanpick_v4l2_fmt_yuyv)
        #expect(
            bytes.withUnsafeBytes {
                Luma.grey(from: $0, format: yuyv, width: 4, height: 4, stride: 8, jpeg: ImageLoader())
            } == nil)
        #expect(
            bytes.withUnsafeBytes {
                Luma.grey(from: $0, format: yuyv, width: 2, height: 2, stride: 6, jpeg: ImageLoader())
            }?.pixels.count == 4)
    }
}
