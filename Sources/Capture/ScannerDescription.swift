import Foundation

/// A handheld scanner as `scanpick devices` lists it: the stable name station.json's `scanners`
/// should use (`/dev/scanpick/scanner-0` from the package's udev rule, else
/// `/dev/input/by-id/…-event-kbd`), the event device it is now, and the name the kernel gives it.
/// Read from the names in `/dev` and from sysfs, without opening (or grabbing) the device.
///
///     for scanner in ScannerDescription.all() { print(scanner.path, scanner.name) }
public struct ScannerDescription: Sendable, Equatable {
    /// The name to put in station.json.
    public var path: String
    /// The event device it points at now (`/dev/input/event3`).
    public var device: String
    /// The kernel's name for it ("Honeywell Imaging & Mobility 1900"), or "unnamed".
    public var name: String

    /// Every scanner the package's udev rule named (`/dev/scanpick/scanner-*`), then every other
    /// USB keyboard-class device (`/dev/input/by-id/*-event-kbd`: a scanner of a make the rule
    /// does not know, or a keyboard), one entry per event device, in order.
    public static func all(dev: String = "/dev", sys: String = "/sys") -> [ScannerDescription] {
        var seen: Set<String> = []
        var found: [ScannerDescription] = []
        for (folder, matches) in [
            ("scanpick", { (name: String) in name.hasPrefix("scanner-") }),
            ("input/by-id", { (name: String) in name.hasSuffix("-event-kbd") }),
        ] {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dev + "/" + folder)) ?? [])
                .filter(matches).sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
            for name in names {
                let path = dev + "/" + folder + "/" + name
                let device = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                guard seen.insert(device).inserted else { continue }
                let event = (device as NSString).lastPathComponent
                let kernelName =
                    (try? String(contentsOfFile: "\(sys)/class/input/\(event)/device/name", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                found.append(
                    ScannerDescription(
                        path: path, device: device,
                        name: kernelName.map { $0.isEmpty ? "unnamed" : $0 } ?? "unnamed"))
            }
        }
        return found
    }
}
