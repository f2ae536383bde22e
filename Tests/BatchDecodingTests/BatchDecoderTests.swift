import Foundation
import Imaging
import Scanning
import TestSupport
import Testing

@testable import BatchDecoding

@Suite struct BatchDecoderTests {
    /// A folder with good samples interleaved with every kind of bad input.
    func mixedBatch(_ folder: TemporaryDirectory) throws -> [String] {
        let png = try Repository.sampleBytes("clean/ean13.png")
        let jpeg = try Repository.sampleBytes("degraded/code128-small.jpg")
        return [
            try folder.write("01-good.png", bytes: png),
            try folder.write("02-empty.png", bytes: []),
            try folder.write("03-truncated.png", bytes: Array(png.prefix(png.count / 3))),
            try folder.write("04-good.jpg", bytes: jpeg),
            try folder.write("05-truncated.jpg", bytes: Array(jpeg.prefix(jpeg.count / 2))),
            try folder.write("06-text.png", text: "this is not an image\n"),
            try folder.write("07-huge.png", bytes: ImageBytes.pngHeaderOnly(width: 100_000, height: 100_000)),
            folder.file("08-missing.png"),
            "/proc/self/mem",
            try folder.write("10-good.pgm", bytes: try Repository.sampleBytes("degraded/upca-lowcontrast.pgm")),
        ]
    }

    @Test func oneBadFileDoesNotStopTheBatchAndEachErrorIsNamed() throws {
        let folder = try TemporaryDirectory()
        let paths = try mixedBatch(folder)
        var reports: [ImageReport] = []
        BatchDecoder(jobs: 3).run(DecodeInput.collect(paths)) { reports.append($0) }

        #expect(reports.map(\.file) == paths)
        #expect(reports[0].barcodes.map(\.text) == ["5901234123457"])
        #expect(reports[3].barcodes.map(\.text) == ["PICK-000417/A1"])
        #expect(reports[9].barcodes.map(\.text) == ["036000291452"])
        #expect(reports[1].error == .empty)
        #expect(reports[2].error == .truncated(format: .png))
        #expect(reports[4].error == .truncated(format: .jpeg))
        #expect(reports[5].error == .unknownFormat)
        #expect(reports[6].error == .tooManyPixels(width: 100_000, height: 100_000, limit: 64 << 20))
        #expect(reports[7].error == .notFound)
        #expect(reports[8].error == .unreadable(reason: "Input/output error"))
        let failed = reports.filter { $0.error != nil }
        #expect(failed.count == 7)
        #expect(failed.allSatisfy { $0.barcodes.isEmpty })
    }

    @Test func reportsArriveInInputOrderWhateverTheWorkerCount() throws {
        let inputs = DecodeInput.collect([Repository.sampleImages])
        var sequential: [ImageReport] = []
        BatchDecoder(jobs: 1).run(inputs) { sequential.append($0) }
        var progressSeen: [Int] = []
        var parallel: [ImageReport] = []
        BatchDecoder(jobs: 4).run(inputs, progress: { progressSeen.append($0) }) { parallel.append($0) }

        #expect(parallel.map(\.file) == inputs.map(\.path))
        #expect(parallel.map(\.barcodes) == sequential.map(\.barcodes))
        #expect(progressSeen.count == inputs.count)
        #expect(progressSeen.last == inputs.count)
    }

    @Test func everySampleImageDecodesToItsManifestEntry() throws {
        let manifest = try Manifest(contentsOf: Repository.sampleManifest)
        var scorer = ExpectationScorer(manifest: manifest)
        // Every image under SampleImages/ but try-harder/, matrix/ and angles/, which have their own
        // manifests.
        let inputs = DecodeInput.collect([Repository.sampleImages]).filter {
            !$0.path.contains("/try-harder/") && !$0.path.contains("/matrix/") && !$0.path.contains("/angles/")
        }
        BatchDecoder().run(inputs) { scorer.record($0) }
        let card = scorer.scorecard()
        #expect(card.mismatchLines == [])
        #expect(card.notDecoded == [])
        #expect(card.unlisted == 0)
        #expect(card.total.images >= 40)
        #expect(card.total.correct == card.total.images)
        // The samples cover the symbologies the product card names, clean and degraded.
        let covered = Set(card.rows.map(\.symbology))
        #expect(
            covered.isSuperset(of: ["EAN-13", "EAN-8", "UPC-A", "UPC-E", "CODE-128", "CODE-39", "I2/5", "QR-Code"]))
        #expect(covered.contains(Scorecard.noCodeLabel))
    }

    @Test func dataMatrixAztecAndPDF417SamplesDecodeWhenAskedFor() throws {
        let manifest = try Manifest(contentsOf: Repository.sample("matrix/manifest.csv"))
        let inputs = DecodeInput.collect([Repository.sample("matrix")])
        var asked = ExpectationScorer(manifest: manifest)
        BatchDecoder(options: ReaderOptions(symbologies: Set(Symbology.allCases))).run(inputs) { asked.record($0) }
        let card = asked.scorecard()
        #expect(card.mismatchLines == [])
        #expect(card.total.images >= 7)
        #expect(card.total.correct == card.total.images)
        #expect(Set(card.rows.map(\.symbology)).isSuperset(of: ["DataMatrix", "Aztec", "PDF417"]))
        // By default only ZBar's symbologies are looked for: of these, the GS1-128 alone.
        var byDefault = ExpectationScorer(manifest: manifest)
        BatchDecoder().run(inputs) { byDefault.record($0) }
        #expect(byDefault.scorecard().total.correct == 1)
    }
}
