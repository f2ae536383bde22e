import CEvdev
import Capture
import Foundation

/// `scanpick-bench virtual-scanner [--name NAME] [--usb-id VENDOR:PRODUCT]`: a uinput keyboard that
/// types like a handheld scanner, for scripts/test-service-vm (machines with `/dev/uinput`); with
/// `--usb-id` (hex, as `lsusb` shows it) it says it is that USB device, as a real scanner would.
/// Prints the device's `/dev/input/eventN` path as the first line once the node exists, then types
/// each line of standard input as one scan (keys and Enter) and prints `typed LINE`; returns at end
/// of input (the device is destroyed: the scanner unplugged).
func runVirtualScanner(name: String, usbID: String?) -> Int32 {
    var ids: (vendor: UInt16, product: UInt16)?
    if let usbID {
        let parts = usbID.split(separator: ":").compactMap { UInt16($0, radix: 16) }
        guard parts.count == 2, usbID.count == 9 else {
            FileHandle.standardError.write(
                Data("scanpick-bench: --usb-id takes VENDOR:PRODUCT in hex, e.g. 0c2e:0b61\n".utf8))
            return 2
        }
        ids = (parts[0], parts[1])
    }
    let scanner: VirtualScanner
    do {
        scanner = try VirtualScanner(name: name, usbID: ids)
    } catch {
        FileHandle.standardError.write(Data("scanpick-bench: no virtual scanner: \(error)\n".utf8))
        return 1
    }
    // The kernel names the node at once; devtmpfs makes it a moment later.
    let deadline = Date().addingTimeInterval(10)
    while !FileManager.default.fileExists(atPath: scanner.devicePath) {
        guard Date() < deadline, !scanner.devicePath.isEmpty else {
            FileHandle.standardError.write(
                Data("scanpick-bench: the virtual scanner's node '\(scanner.devicePath)' did not appear\n".utf8))
            return 1
        }
        usleep(10_000)
    }
    // Written straight to the descriptor (not print's buffer): the caller reads each line at once.
    FileHandle.standardOutput.write(Data("\(scanner.devicePath)\n".utf8))
    while let line = readLine() {
        scanner.type(line, spacing: 0.001)
        FileHandle.standardOutput.write(Data("typed \(line)\n".utf8))
    }
    return 0
}

/// `scanpick-bench key-events --device PATH --seconds N`: reads the device without grabbing it for N
/// seconds and prints how many key events (presses, repeats and releases) it saw. Says
/// `key-events: reading PATH` on standard error once the device is open, so a caller knows when to
/// start typing. A grab by another reader (the station's) leaves this one with nothing.
func countKeyEvents(device path: String, seconds: Double) -> Int32 {
    guard seconds > 0, seconds <= 3600 else {
        FileHandle.standardError.write(Data("scanpick-bench: --seconds must be between 0 and 3600\n".utf8))
        return 2
    }
    let descriptor = scanpick_evdev_open(path)
    guard descriptor >= 0 else {
        FileHandle.standardError.write(
            Data("scanpick-bench: cannot open \(path): \(String(cString: strerror(-descriptor)))\n".utf8))
        return 1
    }
    defer { close(descriptor) }
    var handle: OpaquePointer?
    guard libevdev_new_from_fd(descriptor, &handle) == 0, let device = handle else {
        FileHandle.standardError.write(Data("scanpick-bench: \(path) is not an input device\n".utf8))
        return 1
    }
    defer { libevdev_free(device) }
    FileHandle.standardError.write(Data("key-events: reading \(path)\n".utf8))
    let deadline = Date().addingTimeInterval(seconds)
    var keys = 0
    var event = input_event()
    var syncing = false  // after the kernel dropped events: libevdev's delta, until -EAGAIN
    while Date() < deadline {
        let status = scanpick_evdev_next(device, syncing ? 1 : 0, &event)
        if status == -EAGAIN {
            if syncing {
                syncing = false
                continue
            }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, min(250, deadline.timeIntervalSinceNow * 1000)))
            _ = poll(&waiting, 1, left)
            continue
        }
        if status == 1 {
            syncing = true
            continue
        }
        guard status == 0 || status == 2 else {
            FileHandle.standardError.write(
                Data("scanpick-bench: reading \(path) failed: \(String(cString: strerror(-status)))\n".utf8))
            return 1
        }
        if event.type == UInt16(EV_KEY) { keys += 1 }
    }
    print(keys)
    return 0
}
