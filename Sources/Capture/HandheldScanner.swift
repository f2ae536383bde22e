internal import CEvdev
import Foundation
import Synchronization

/// A USB handheld scanner — a keyboard to Linux — read through evdev. The device is grabbed
/// (`EVIOCGRAB`), so scans never type into whatever window has focus, and its key events are turned
/// into codes by a ``KeyCodeDecoder`` (key codes, not the desktop's layout).
///
///     let scanner = try HandheldScanner(device: "/dev/input/by-id/usb-…-event-kbd")
///     while let read = try scanner.nextRead() { … }  // until close()
public final class HandheldScanner: @unchecked Sendable {
    // The libevdev handle is used by the one thread calling nextRead(); close() only sets a flag
    // that thread sees within a poll interval, hence @unchecked Sendable.
    public let path: String
    /// The device's name as the kernel reports it (e.g. "Honeywell Imaging & Mobility 1900").
    public let name: String
    private let descriptor: Int32
    private let device: OpaquePointer
    private var decoder: KeyCodeDecoder
    /// The clock the kernel stamps this device's events with (monotonic unless the kernel refused).
    private let clock: clockid_t
    /// Whether libevdev is handing over the state delta after the kernel dropped events.
    private var syncing = false
    private let closed = Atomic(false)

    /// Opens and grabs the scanner; errors say what is wrong with the device and what to do.
    public init(device path: String, options: KeyCodeDecoder.Options = .init()) throws(CaptureError) {
        self.path = path
        let opened = scanpick_evdev_open(path)
        guard opened >= 0 else { throw Self.error(-opened, path) }
        var handle: OpaquePointer?
        let created = libevdev_new_from_fd(opened, &handle)
        guard created == 0, let handle else {
            Glibc.close(opened)
            throw .notAScanner(path, reason: "not an input device (\(String(cString: strerror(-created))))")
        }
        guard libevdev_has_event_type(handle, UInt32(EV_KEY)) == 1,
            libevdev_has_event_code(handle, UInt32(EV_KEY), UInt32(KeyCode.enter)) == 1
        else {
            libevdev_free(handle)
            Glibc.close(opened)
            throw .notAScanner(path, reason: "it has no Enter key: not a keyboard-class device")
        }
        let grabbed = libevdev_grab(handle, LIBEVDEV_GRAB)
        guard grabbed == 0 else {
            libevdev_free(handle)
            Glibc.close(opened)
            throw grabbed == -EBUSY ? .busy(path) : Self.error(-grabbed, path)
        }
        // Key timing is compared with "now" while idle: both on the monotonic clock.
        clock = scanpick_evdev_use_monotonic_clock(handle) == 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME
        descriptor = opened
        device = handle
        name = libevdev_get_name(handle).map { String(cString: $0) } ?? "unnamed"
        decoder = KeyCodeDecoder(options: options)
    }

    deinit {
        _ = libevdev_grab(device, LIBEVDEV_UNGRAB)
        libevdev_free(device)
        Glibc.close(descriptor)
    }

    /// Blocks until the scanner has typed a whole code (or something refused), and returns it; nil
    /// once ``close()`` was called. Throws ``CaptureError/deviceFailed(_:reason:)`` when the
    /// scanner is unplugged.
    public func nextRead() throws(CaptureError) -> KeyCodeDecoder.Read? {
        var event = input_event()
        while !closed.load(ordering: .relaxed) {
            let status = scanpick_evdev_next(device, syncing ? 1 : 0, &event)
            switch status {
            case 0: break
            case 1:
                // The kernel's buffer overflowed: a code lost keys (the decoder refuses it). libevdev
                // now hands over the state delta (2), then -EAGAIN, after which its key state is current.
                syncing = true
                decoder.eventsDropped(at: Double(event.time.tv_sec) + Double(event.time.tv_usec) / 1_000_000)
                continue
            case 2: continue
            case -EAGAIN:
                if syncing {
                    syncing = false
                    decoder.resynchronise(
                        shiftHeld: heldCount(KeyCode.leftShift, KeyCode.rightShift),
                        controlHeld: heldCount(KeyCode.leftControl, KeyCode.rightControl))
                }
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // Wakes for input, to see a close(), or to give up keys no terminator ended.
                if poll(&waiting, 1, 250) == 0, let read = decoder.idle(at: now()) { return read }
                continue
            default:
                throw .deviceFailed(
                    path, reason: status == -ENODEV ? "the scanner was unplugged" : String(cString: strerror(-status)))
            }
            guard event.type == UInt16(EV_KEY) else { continue }
            let time = Double(event.time.tv_sec) + Double(event.time.tv_usec) / 1_000_000
            if let read = decoder.feed(key: event.code, value: event.value, at: time) { return read }
        }
        return nil
    }

    private func heldCount(_ keys: UInt16...) -> Int {
        keys.filter { scanpick_evdev_key_down(device, UInt32($0)) != 0 }.count
    }

    private func now() -> Double {
        var now = timespec()
        clock_gettime(clock, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
    }

    /// Makes ``nextRead()`` return nil within a quarter of a second; the device is let go on deinit.
    public func close() { closed.store(true, ordering: .relaxed) }

    static func error(_ code: Int32, _ path: String) -> CaptureError {
        switch code {
        case ENOENT, ENODEV, ENXIO: .noSuchScanner(path)
        case EACCES, EPERM: .permissionDenied(path)
        case EBUSY: .busy(path)
        default: .deviceFailed(path, reason: String(cString: strerror(code)))
        }
    }
}

/// A virtual keyboard made through uinput that types codes as a scanner would: for end-to-end tests
/// and benchmarks on machines that have `/dev/uinput`.
public final class VirtualScanner: @unchecked Sendable {
    // Used by one thread at a time (the test typing); libevdev's uinput handle is not shared.
    private let uinput: OpaquePointer
    /// The event device the kernel made for it (`/dev/input/eventN`).
    public let devicePath: String

    /// A keyboard named `name`; with a `usbID` it says it is a USB device of that vendor and product
    /// (as a real scanner does: udev rules that match scanners by vendor match it).
    public init(
        name: String = "scanpick virtual scanner", usbID: (vendor: UInt16, product: UInt16)? = nil
    ) throws(CaptureError) {
        var error: Int32 = 0
        let vendor = usbID.map { Int32($0.vendor) } ?? -1
        let product = usbID.map { Int32($0.product) } ?? 0
        guard let made = scanpick_uinput_keyboard(name, vendor, product, &error) else {
            throw .deviceFailed("/dev/uinput", reason: String(cString: strerror(-error)))
        }
        uinput = made
        devicePath = libevdev_uinput_get_devnode(made).map { String(cString: $0) } ?? ""
    }

    deinit { libevdev_uinput_destroy(uinput) }

    /// Types `code` and Enter through the US key table (GS as Ctrl+]), a key every `spacing` seconds.
    public func type(_ code: String, spacing: Double = 0.002) {
        var keyOf: [Character: (UInt16, Bool)] = [:]
        for (key, pair) in KeyCodeDecoder.usLayout where key < 71 {
            keyOf[pair.plain] = (key, false)
            if keyOf[pair.shifted] == nil { keyOf[pair.shifted] = (key, true) }
        }
        func press(_ key: UInt16, _ value: Int32) {
            libevdev_uinput_write_event(uinput, UInt32(EV_KEY), UInt32(key), value)
            libevdev_uinput_write_event(uinput, UInt32(EV_SYN), UInt32(SYN_REPORT), 0)
        }
        for character in code {
            if character == "\u{1D}" {  // GS, as scanners type it: Ctrl+]
                press(KeyCode.leftControl, 1)
                press(KeyCode.rightBrace, 1)
                press(KeyCode.rightBrace, 0)
                press(KeyCode.leftControl, 0)
                continue
            }
            guard let (key, shifted) = keyOf[character] else { continue }
            if shifted { press(KeyCode.leftShift, 1) }
            press(key, 1)
            press(key, 0)
            if shifted { press(KeyCode.leftShift, 0) }
            usleep(useconds_t(spacing * 1_000_000))
        }
        press(KeyCode.enter, 1)
        press(KeyCode.enter, 0)
    }
}
