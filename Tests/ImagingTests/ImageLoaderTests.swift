import Foundation
import TestSupport
import Testing

@testable import Imaging

@Suite struct ImageLoaderTests {
    let loader = ImageLoader()

    @Test func readsBinaryAndTextPGMExactly() throws {
        let eightBit = try loader.decode(ImageBytes.pgm(width: 3, height: 2, samples: [0, 10, 20, 30, 40, 255]))
        #expect(eightBit == GreyImage(width: 3, height: 2, pixels: [0, 10, 20, 30, 40, 255]))

        let sixteenBit = try loader.decode(ImageBytes.pgm(width: 2, height: 1, maxValue: 65535, samples: [0, 65535]))
        #expect(sixteenBit.pixels == [0, 255])

        let text = try loader.decode(Array("P2\n# comment\n2 2\n15\n0 15\n5 10\n".utf8))
        #expect(text.pixels == [0, 255, 85, 170])
    }

    @Test func turnsColourPPMIntoLuminance() throws {
        let ppm = Array("P6\n2 1\n255\n".utf8) + [255, 0, 0, 255, 255, 255]
        let image = try loader.decode(ppm)
        #expect(image.pixels == [76, 255])  // red is dark in luminance
    }

    @Test(arguments: [
        "clean/ean13.png", "clean/ean13-alpha.png", "clean/code128-palette.png", "clean/upca.ppm",
        "degraded/ean13-blurred.png", "degraded/ean13-rotated.jpg", "degraded/ean13-small.jpg",
        "degraded/ean13-lowcontrast.pgm",
    ])
    func loadsEveryFormatOfTheSamples(file: String) throws {
        let image = try loader.load(path: Repository.sample(file))
        #expect(image.width > 50 && image.height > 20)
        #expect(image.pixels.count == image.width * image.height)
        // Every sample is darker bars on a lighter ground, even the low-contrast one.
        let darkest = Int(image.pixels.min() ?? 0)
        let lightest = Int(image.pixels.max() ?? 0)
        #expect(lightest - darkest > 60)
    }

    @Test func composesTransparentPNGOntoWhite() throws {
        let image = try loader.load(path: Repository.sample("clean/ean13-alpha.png"))
        #expect(image[0, 0] == 255)
    }

    @Test func sixteenBitAndProgressiveFilesMatchTheirCleanOriginalInSize() throws {
        let clean = try loader.load(path: Repository.sample("clean/ean13.png"))
        let sixteen = try loader.load(path: Repository.sample("degraded/ean13-blurred.png"))
        #expect(sixteen.width == clean.width && sixteen.height == clean.height)
    }

    @Test func refusesEmptyTextAndTruncatedFiles() throws {
        #expect(throws: ImageLoadError.empty) { try loader.decode([]) }
        #expect(throws: ImageLoadError.unknownFormat) { try loader.decode(Array("hello, I am text".utf8)) }

        let png = try Repository.sampleBytes("clean/ean13.png")
        #expect(throws: ImageLoadError.truncated(format: .png)) { try loader.decode(Array(png.prefix(png.count / 2))) }

        let jpeg = try Repository.sampleBytes("degraded/ean13-small.jpg")
        #expect(throws: ImageLoadError.truncated(format: .jpeg)) {
            try loader.decode(Array(jpeg.prefix(jpeg.count / 2)))
        }
        // Cut inside its header, where TurboJPEG "reads" a header of no size: truncated, not 0×0.
        for length in [3, 4, 10, 20] {
            #expect(throws: ImageLoadError.truncated(format: .jpeg), "\(length) bytes") {
                try loader.decode(Array(jpeg.prefix(length)))
            }
        }
        #expect(throws: ImageLoadError.truncated(format: .pnm)) {
            try loader.decode(Array(ImageBytes.pgm(width: 4, height: 4, samples: [1, 2, 3]).dropLast()))
        }
    }

    @Test func aNetpbmHeaderClaimingTerabytesIsRefusedBeforeAllocating() throws {
        // 23 bytes claiming 2^40 pixels, with a limit that lets the claim through: the missing raster
        // is found before anything is reserved for it (this allocated 26 TB and crashed).
        let huge = ImageLoader(limits: .init(maxPixels: 1 << 40))
        #expect(throws: ImageLoadError.truncated(format: .pnm)) {
            try huge.decode(Array("P6 1048576 1048576 255\n".utf8))
        }
        #expect(throws: ImageLoadError.truncated(format: .pnm)) {
            try huge.decode(Array("P2 1048576 1048576 255 0".utf8))
        }
        #expect(throws: ImageLoadError.self) { try loader.decode(Array("P2\n2 1\n15\n0 16\n".utf8)) }  // over maxval
    }

    @Test func refusesHugeImagesBeforeAllocating() throws {
        let claim = ImageBytes.pngHeaderOnly(width: 100_000, height: 100_000)
        #expect(throws: ImageLoadError.tooManyPixels(width: 100_000, height: 100_000, limit: 64 << 20)) {
            try loader.decode(claim)
        }
        let small = ImageLoader(limits: .init(maxPixels: 1000))
        #expect(throws: ImageLoadError.self) { try small.load(path: Repository.sample("degraded/ean13-small.jpg")) }
        #expect(throws: ImageLoadError.tooManyPixels(width: 40, height: 30, limit: 1000)) {
            try small.decode(ImageBytes.pgm(width: 40, height: 30, samples: []))
        }
    }

    @Test func refusesOversizedFiles() throws {
        let folder = try TemporaryDirectory()
        let bytes = ImageBytes.pgm(width: 10, height: 10, samples: Array(repeating: 1, count: 100))
        let path = try folder.write("big.pgm", bytes: bytes)
        let tiny = ImageLoader(limits: .init(maxFileBytes: 50))
        #expect(throws: ImageLoadError.fileTooLarge(bytes: bytes.count, limit: 50)) { try tiny.load(path: path) }
        #expect(try ImageLoader().load(path: path).width == 10)
    }

    @Test func namesFileSystemProblems() throws {
        let folder = try TemporaryDirectory()
        #expect(throws: ImageLoadError.notFound) { try loader.load(path: folder.file("missing.png")) }
        #expect(throws: ImageLoadError.isDirectory) { try loader.load(path: folder.path) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("loop.png"), withDestinationPath: folder.file("loop.png"))
        #expect(throws: ImageLoadError.symlinkLoop) { try loader.load(path: folder.file("loop.png")) }
        // Reading /proc/self/mem at offset 0 fails with EIO even for root: a file that cannot be read.
        #expect(throws: ImageLoadError.unreadable(reason: "Input/output error")) {
            try loader.load(path: "/proc/self/mem")
        }
    }

    @Test func errorsSayWhatHappened() {
        #expect(ImageLoadError.empty.description == "empty file (0 bytes)")
        #expect(ImageLoadError.tooManyPixels(width: 9, height: 9, limit: 10).description.contains("9×9"))
        // The library says the limit; the command that sets it adds its option's name.
        #expect(
            ImageLoadError.tooManyPixels(width: 9, height: 9, limit: 10).description
                == "image is 9×9 pixels, over the limit of 10 pixels")
        #expect(ImageLoadError.truncated(format: .png).description.contains("truncated PNG"))
    }
}
