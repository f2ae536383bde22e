import Foundation
import Imaging
import Scanning

/// Puts every image through zxing-cpp in the two calls the product makes (`ZXingReader.read`: every
/// readable symbology on 2 scan lines, turning the picture, as the camera loop and the Code 128
/// check do; and on 3 lines, not turning it, as `--try-harder`'s last look does), whatever ZBar
/// would have read. Prints one line per image; an image zxing-cpp aborts on ends the process with
/// SIGABRT, which `scripts/check-zxing` counts. Returns the exit status.
func zxingEach(_ paths: [String]) -> Int32 {
    let loader = ImageLoader()
    var found = 0
    var unreadable = 0
    for path in paths {
        let image: GreyImage
        do {
            image = try loader.load(path: path)
        } catch {
            unreadable += 1
            print("\(path): not an image we load (\(error))")
            continue
        }
        let turning = ZXingReader.read(image, looking: ZXingReader.readable)
        let rowsOnly = ZXingReader.read(
            image, looking: ZXingReader.readable, minLineCount: BarcodeReader.secondEngineLineCount, rotating: false)
        let codes = [turning, rowsOnly].compactMap { $0.map { "\($0.symbology) \($0.text ?? "(binary)")" } }
        if !codes.isEmpty { found += 1 }
        print("\(path): \(codes.isEmpty ? "nothing" : codes.joined(separator: " | "))")
    }
    print("zxing-each: \(paths.count) images, \(found) with a code, \(unreadable) not loaded, none aborted")
    return 0
}
