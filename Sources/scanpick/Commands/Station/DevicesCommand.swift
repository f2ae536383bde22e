import ArgumentParsing
import Capture
import Foundation
import JSONText
import Wire

/// `scanpick devices`: the capture devices, their formats and sizes.
enum DevicesCommand: Command {
    struct Arguments: CommandArguments {
        var json = Flag("json", help: "Print [{\"path\", \"card\", \"driver\", \"formats\": [...]}].")
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "devices",
            abstract: "List video capture devices with their formats and frame sizes.",
            discussion: """
                Formats marked (emulated) are converted by libv4lconvert; scanpick prefers the camera's own,
                in this order: GREY, planar YUV, YUYV/UYVY, MJPEG. Exit code 0 when at least one capture
                device was found, 1 otherwise.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let (devices, problems) = VideoDeviceDescription.all()
        for problem in problems { StandardStream.error.write("scanpick devices: \(problem)\n") }
        if arguments[\.json] {
            let items = devices.map { device -> String in
                var object = JSONObjectWriter()
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
            StandardStream.output.write("[" + items.joined(separator: ",") + "]\n")
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
        return devices.isEmpty ? 1 : 0
    }
}
