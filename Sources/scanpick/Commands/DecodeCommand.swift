import ArgumentParsing
import BatchDecoding
import Foundation
import Imaging
import Scanning

/// `scanpick decode`: batch decoding of still images, zbarimg-compatible by default.
enum DecodeCommand: Command {
    static let spec = CommandSpec(
        name: "decode",
        abstract: "Decode barcodes in still images (PNG, JPEG, PGM/PPM).",
        discussion: """
            Output: one SYMBOLOGY:DATA line per code found, as zbarimg prints them (EAN-13, UPC-A,
            CODE-128, QR-Code, ...); with --json, one JSON object per image per line, in input order:
              {"file": PATH, "symbols": [{"symbology", "data", "quality", "points", "orientation"}], "ms": N}
            plus "error" for an image that could not be read. A payload that is not UTF-8 text is base64
            with "dataEncoding": "base64". UPC-A and UPC-E are reported as themselves, never as an EAN-13
            with a leading zero. Directories are walked recursively in sorted order; files in them
            without an image extension are skipped, while a file named explicitly is always tried.

            With --expect MANIFEST (CSV: file,symbology,data; file relative to the manifest; empty data
            means no code may be found) the results are compared with it: images not matching are listed,
            then a table per symbology. Without PATHs, the manifest's files are decoded.

            Exit codes:
              0  every image had a code (with --expect: every image matched)
              1  some file could not be read (reported after all others were decoded)
              2  usage error
              3  with --expect: some image did not match the manifest
              4  some image had no code (zbarimg's convention)
            """,
        options: [
            .flag("json", help: "Print one JSON object per image instead of SYMBOLOGY:DATA lines."),
            .value(
                "symbologies", short: "S", valueName: "LIST",
                help:
                    "Comma-separated ZBar names to look for (ean13,ean8,upca,upce,i25,code39,code93,code128,codabar,databar,databar-exp,qrcode,...; 'all'). Default: all but isbn10/isbn13."
            ),
            .flag(
                "try-harder",
                help:
                    "Look again at images where the first look found nothing: our own DataBar Expanded decoder, then ZBar on the picture thickened (if under 8 px), contrast-stretched, inverted, halved, and (up to 256x256) doubled (QR only), padded, sharpened, blurred; pictures over 0.2 MP are halved first."
            ),
            .value(
                "retry-passes", valueName: "LIST",
                help:
                    "The try-harder looks by ZBar, in order (implies --try-harder). Default, in this order: \(BarcodeReader.RetryPass.standard.map(\.name).joined(separator: ", "))."
            ),
            .flag(
                "join-add-ons",
                help: "Report an EAN-2/EAN-5 add-on appended to its EAN/UPC (978073520044951299), not on its own."),
            .flag(
                "code39-full-ascii",
                help:
                    "Decode Code 39 Full ASCII shifts (+A is a, /A is !); a code with an undefined shift stays as printed."
            ),
            .value("jobs", short: "j", valueName: "N", help: "Images decoded at once (default: one per core)."),
            .value("expect", valueName: "MANIFEST", help: "Compare results with a CSV manifest and print a table."),
            .value(
                "max-pixels", valueName: "N",
                help: "Refuse images larger than N pixels before allocating them (default 67108864, 8192x8192)."),
            .flag("quiet", short: "q", help: "No summary line on standard error."),
        ],
        arguments: [
            ArgumentSpec(name: "PATH", help: "Image files or directories.", repeating: true, optional: true)
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        var options = ReaderOptions(
            tryHarder: arguments.has("try-harder"), joinsAddOns: arguments.has("join-add-ons"),
            code39FullASCII: arguments.has("code39-full-ascii"))
        if let list = arguments.value("retry-passes") {
            options.tryHarder = true
            options.retryPasses = try list.split(separator: ",").map { name in
                guard let pass = BarcodeReader.RetryPass(name: String(name)) else {
                    throw UsageError(
                        "--retry-passes: unknown pass '\(name)' (known: \(BarcodeReader.RetryPass.allCases.map(\.name).joined(separator: ", ")))"
                    )
                }
                return pass
            }
        }
        if let list = arguments.value("symbologies") {
            do {
                options.symbologies = try Symbology.parseList(list)
            } catch {
                throw UsageError(error.description)
            }
        }
        var limits = ImageLoader.Limits()
        if let maxPixels = try arguments.integer("max-pixels", in: 1...(1 << 40)) { limits.maxPixels = maxPixels }
        let jobs = try arguments.integer("jobs", in: 1...256)
        let json = arguments.has("json")

        let manifest = try arguments.value("expect").map { path throws(ManifestError) in try Manifest(contentsOf: path)
        }
        var paths = arguments.positionals
        if paths.isEmpty {
            guard let manifest else { throw UsageError("missing PATH (an image file or a directory)") }
            var seen = Set<String>()  // an image with several codes has several rows
            paths = manifest.entries.map(\.path).filter { seen.insert($0).inserted }
        }

        let inputs = DecodeInput.collect(paths)
        guard !inputs.isEmpty else {
            throw UsageError(
                "no images in \(paths.joined(separator: ", ")): a folder is searched for \(ImageFormat.fileExtensions.sorted().map { "." + $0 }.joined(separator: " ")) files"
            )
        }
        var scorer = manifest.map(ExpectationScorer.init)
        var progress = ProgressLine(total: inputs.count, enabled: StandardStream.error.isTerminal && inputs.count >= 50)
        var tally = Tally()
        let start = ContinuousClock.now

        BatchDecoder(options: options, limits: limits, jobs: jobs).run(inputs, progress: { progress.update($0) }) {
            report in
            tally.add(report)
            scorer?.record(report)
            if json {
                StandardStream.output.write(report.jsonLine + "\n")
            } else {
                if let error = report.error {
                    progress.clear()
                    StandardStream.error.write("scanpick: \(report.file): \(error)\n")
                }
                if scorer == nil { StandardStream.output.write(bytes: report.textLines) }
            }
        }
        progress.clear()

        if let scorecard = scorer?.scorecard() {
            let text = (scorecard.mismatchLines + [scorecard.table]).joined(separator: "\n") + "\n"
            if json { StandardStream.error.write(text) } else { StandardStream.output.write(text) }
        }
        if !arguments.has("quiet") {
            StandardStream.output.flush()
            StandardStream.error.write(tally.summary(seconds: start.secondsSince) + "\n")
        }
        if let scorecard = scorer?.scorecard() { return scorecard.allMatch ? 0 : 3 }
        return tally.exitCode
    }
}

/// Counts for the closing summary and the exit code.
private struct Tally {
    var images = 0
    var symbols = 0
    var unreadable = 0
    var withoutCode = 0

    mutating func add(_ report: ImageReport) {
        images += 1
        symbols += report.barcodes.count
        if report.error != nil {
            unreadable += 1
        } else if report.barcodes.isEmpty {
            withoutCode += 1
        }
    }

    /// 1 if a file could not be read, else 4 if an image had no code, else 0.
    var exitCode: Int32 { unreadable > 0 ? 1 : (withoutCode > 0 ? 4 : 0) }

    func summary(seconds: Double) -> String {
        var text =
            "scanned \(symbols) barcode symbols from \(images) images in \(String(format: "%.2f", seconds)) seconds"
        if withoutCode > 0 { text += "; \(withoutCode) without a code" }
        if unreadable > 0 { text += "; \(unreadable) could not be read" }
        return text
    }
}

extension ImageReport {
    /// zbarimg's text output: `SYMBOLOGY:DATA` per code, payload bytes as decoded.
    var textLines: [UInt8] {
        barcodes.flatMap { Array("\($0.symbology.displayName):".utf8) + $0.payload + [0x0A] }
    }
}

extension ContinuousClock.Instant {
    var secondsSince: Double {
        let elapsed = ContinuousClock.now - self
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
