import ArgumentParsing
import Capture
import Foundation
import JSONText
import TerminalText
import Wire

/// `scanpick devices`: the capture devices, their formats and sizes, and the handheld scanners.
enum DevicesCommand: Command {
    struct Arguments: CommandArguments {
        var json = Flag(
            "json",
            help:
                "Print [{\"kind\": \"camera\", \"path\", \"card\", \"driver\", \"formats\": [...]}, {\"kind\": \"scanner\", \"path\", \"device\", \"name\"}]."
        )
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "devices",
            abstract: "List video capture devices with their formats and frame sizes, and handheld scanners.",
            discussion: """
                Formats marked (emulated) are converted by libv4lconvert; scanpick prefers the camera's own,
                in this order: GREY, planar YUV, YUYV/UYVY, MJPEG. Handheld scanners are listed by the name
                to put in station.json's "scanners" (/dev/scanpick/scanner-N from the package's udev rule,
                else /dev/input/by-id/…-event-kbd, which a keyboard has too), with the kernel's name for each.
                Exit code 0 when at least one camera or scanner was found, 1 otherwise.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let (devices, problems) = VideoDeviceDescription.all()
        let scanners = ScannerDescription.all()
        for problem in problems { StandardStream.error.write("scanpick devices: \(problem)\n") }
        if arguments[\.json] {
            let items = devices.map { device -> String in
                var object = JSONObjectWriter()
                object.add("kind", string: "camera")
                object.add("path", string: device.path)
                object.add("card", string: device.card)
                object.add("driver", string: device.driver)
                let formats = device.formats.map { format -> String in
                    var entry = JSONObjectWriter()
                    entry.add("fourcc", string: format.format)
                    entry.add("name", string: format.name)
                    entry.add("emulated", bool: format.emulated)
                    entry.add("sizes", raw: "[" + format.sizes.map { "\"\($0)\"" }.joined(separator: ",") + "]")
                    return entry.finished()
                }
                object.add("formats", raw: "[" + formats.joined(separator: ",") + "]")
                return object.finished()
            }
            let scannerItems = scanners.map { scanner -> String in
                var object = JSONObjectWriter()
                object.add("kind", string: "scanner")
                object.add("path", string: scanner.path)
                object.add("device", string: scanner.device)
                object.add("name", string: scanner.name)
                return object.finished()
            }
            StandardStream.output.write("[" + (items + scannerItems).joined(separator: ",") + "]\n")
            return devices.isEmpty && scanners.isEmpty ? 1 : 0
        } else if devices.isEmpty {
            StandardStream.output.write(
                "no video capture devices found (is a camera plugged in? is the user in the 'video' group?)\n")
        } else {
            for device in devices {
                StandardStream.output.write("\(device.path)  \(device.card) (\(device.driver))\n")
                for format in device.formats {
                    let sizes = format.sizes.prefix(8).joined(separator: " ") + (format.sizes.count > 8 ? " …" : "")
                    StandardStream.output.write(
                        "  \(format.format)\(format.emulated ? " (emulated)" : "")  \(format.name)  \(sizes)\n")
                }
            }
        }
        if scanners.isEmpty {
            StandardStream.output.write(
                "no handheld scanners found (is one plugged in? is the user in the 'input' group?)\n")
        }
        for scanner in scanners {
            StandardStream.output.write(
                "\(scanner.path)  handheld scanner \(TerminalText.printable(scanner.name)) (\(scanner.device))\n")
        }
        return devices.isEmpty && scanners.isEmpty ? 1 : 0
    }
}
