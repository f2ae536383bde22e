import CV4L2
import Foundation

/// An open V4L2 device (through libv4l2, so libv4lconvert can emulate formats), with what it can do.
/// Closing happens in `deinit`.
final class V4L2Device {
    let path: String
    let descriptor: Int32
    let info: scanpick_v4l2_info

    /// Opens `path` and checks it is a capture device that streams; errors name the device and what to do.
    init(path: String) throws(CaptureError) {
        self.path = path
        let opened = scanpick_v4l2_open(path)
        guard opened >= 0 else { throw Self.error(-opened, path) }
        descriptor = opened
        var info = scanpick_v4l2_info()
        let queried = scanpick_v4l2_query(opened, &info)
        guard queried == 0 else {
            scanpick_v4l2_close(opened)
            throw queried == -ENOTTY ? .notACaptureDevice(path) : Self.error(-queried, path)
        }
        guard info.is_capture != 0, info.can_stream != 0 else {
            scanpick_v4l2_close(opened)
            throw .notACaptureDevice(path)
        }
        self.info = info
    }

    deinit { scanpick_v4l2_close(descriptor) }

    var card: String { withUnsafeBytes(of: info.card) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
    var driver: String { withUnsafeBytes(of: info.driver) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }

    /// The formats the device offers (emulated ones marked), with their names.
    func formats() -> [(format: PixelFormat, name: String)] {
        var result: [(PixelFormat, String)] = []
        var index: UInt32 = 0
        while true {
            var fourcc: UInt32 = 0
            var flags: UInt32 = 0
            var name = [CChar](repeating: 0, count: 64)
            guard scanpick_v4l2_enum_format(descriptor, index, &fourcc, &flags, &name, 64) == 0 else { break }
            let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            result.append((PixelFormat(fourcc: fourcc, emulated: flags & scanpick_v4l2_flag_emulated != 0), text))
            index += 1
        }
        return result
    }

    /// The frame sizes of `format`: discrete sizes, or (`isRange`) the largest of a range in which
    /// any size may be asked for.
    func sizes(of format: PixelFormat) -> (sizes: [(width: Int, height: Int)], isRange: Bool) {
        var result: [(Int, Int)] = []
        var index: UInt32 = 0
        var range: Int32 = 0
        while true {
            var width: UInt32 = 0
            var height: UInt32 = 0
            guard scanpick_v4l2_enum_size(descriptor, format.fourcc, index, &width, &height, &range) == 0 else { break }
            result.append((Int(width), Int(height)))
            index += 1
        }
        return (result, range != 0)
    }

    static func error(_ code: Int32, _ path: String) -> CaptureError {
        switch code {
        case ENOENT, ENXIO, ENODEV: .noSuchDevice(path)
        case EACCES, EPERM: .permissionDenied(path)
        case EBUSY: .busy(path)
        case ENOTTY, EINVAL: .notACaptureDevice(path)  // not a V4L2 device at all (e.g. /dev/null)
        default: .deviceFailed(path, reason: String(cString: strerror(code)))
        }
    }
}

/// A capture device as `scanpick devices` lists it.
public struct VideoDeviceDescription: Sendable {
    public var path: String
    public var card: String
    public var driver: String
    public var formats: [(format: String, name: String, emulated: Bool, sizes: [String])]

    /// Every `/dev/video*` that is a capture device, in order; devices that cannot be opened are
    /// returned as errors beside them.
    public static func all(in folder: String = "/dev") -> (devices: [VideoDeviceDescription], problems: [CaptureError])
    {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("video") }.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
        var devices: [VideoDeviceDescription] = []
        var problems: [CaptureError] = []
        for name in names {
            let path = folder + "/" + name
            do {
                let device = try V4L2Device(path: path)
                devices.append(
                    VideoDeviceDescription(
                        path: path, card: device.card, driver: device.driver,
                        formats: device.formats().map { format, description in
                            (
                                format.description, description, format.emulated,
                                Self.describe(device.sizes(of: format))
                            )
                        }))
            } catch .notACaptureDevice {
                continue  // an output or metadata node: not ours to list
            } catch {
                problems.append(error)
            }
        }
        return (devices, problems)
    }

    static func describe(_ sizes: (sizes: [(width: Int, height: Int)], isRange: Bool)) -> [String] {
        sizes.isRange
            ? sizes.sizes.map { "up to \($0.width)x\($0.height)" } : sizes.sizes.map { "\($0.width)x\($0.height)" }
    }
}
