import Foundation
import Imaging

/// Writes `image` centred on white in a raw `width`×`height` 8-bit grey frame.
func writeGreyFrame(image path: String, width: Int, height: Int, to output: String) throws {
    let image = try ImageLoader().load(path: path)
    var frame = [UInt8](repeating: 255, count: width * height)
    let left = max(0, (width - image.width) / 2)
    let top = max(0, (height - image.height) / 2)
    for y in 0..<min(image.height, height) {
        for x in 0..<min(image.width, width) { frame[(top + y) * width + left + x] = image[x, y] }
    }
    try Data(frame).write(to: URL(fileURLWithPath: output))
}
