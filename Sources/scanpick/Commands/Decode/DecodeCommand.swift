import ArgumentParsing
import BatchDecoding
import Foundation
import Imaging
import Scanning
import TerminalText

/// `scanpick decode`: batch decoding of still images, zbarimg-compatible by default.
enum DecodeCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "decode",
            abstract: "Decode barcodes in still images (PNG, JPEG, PGM/PPM).",
            discussion: """
                Output: one SYMBOLOGY:DATA line per code found, as zbarimg prints them (EAN-13, UPC-A,
                CODE-128, QR-Code, ...); with --json, one JSON object per image per line, in input order:
                  {"file": PATH, "symbols": [{"symbology", "data", "quality", "points", "orientation"}], "ms": N}
                plus "error" for an image that could not be read. A payload that is not UTF-8 text is base64
                with "dataEncoding": "base64". A GS1 symbol (DataBar, GS1-128, GS1 Data Matrix or QR) has
                "gs1": {"01": GTIN, "17": "YYYY-MM-DD", ...}, or "gs1Error" when its data breaks the standard. UPC-A and UPC-E are reported as themselves, never as an EAN-13
                with a leading zero. Directories are walked recursively in sorted order; files in them
                without an image extension are skipped, while a file named explicitly is always tried.

                With --expect MANIFEST (CSV: file,symbology,data; file relative to the manifest; empty data
                means no code may be found) the results are compared with it: images not matching are listed,
                then a table per symbology. Without PATHs, the manifest's files are decoded.

                Exit codes:
                  0  every image had a code (with --expect: every image matched, every file was read)
                  1  some file could not be read (reported after all others were decoded)
                  2  usage error
                  3  with --expect: some image did not match the manifest
                  4  some image had no code (zbarimg's convention)
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let manifest = try arguments[\.expect].map { path throws(ManifestError) in try Manifest(contentsOf: path) }
        var paths = arguments[\.paths]
        if paths.isEmpty {
            guard let manifest, let expect = arguments[\.expect] else {
                throw UsageError("missing PATH (an image file or a directory)")
            }
            guard !manifest.entries.isEmpty else {
                throw UsageError("the manifest \(expect) lists no image (only its header): name PATHs to decode")
            }
            paths = manifest.imagePaths
        }
        let inputs = DecodeInput.collect(paths)
        guard !inputs.isEmpty else {
            let extensions = ImageFormat.fileExtensions.sorted().map { "." + $0 }.joined(separator: " ")
            throw UsageError(
                "no images in \(paths.joined(separator: ", ")): a folder is searched for \(extensions) files")
        }
        let json = arguments[\.json]
        var scorer = manifest.map(ExpectationScorer.init)
        var progress = ProgressLine(total: inputs.count, enabled: StandardStream.error.isTerminal && inputs.count >= 50)
        var tally = DecodeTally()
        let start = ContinuousClock.now
        let decoder = BatchDecoder(
            options: arguments.readerOptions, limits: ImageLoader.Limits(maxPixels: arguments[\.maxPixels]),
            jobs: arguments[\.jobs])
        decoder.run(inputs, progress: { progress.update($0) }) { report in
            tally.add(report)
            scorer?.record(report)
            if json {
                StandardStream.output.write(report.jsonLine(describingError: describe) + "\n")
            } else {
                if let error = report.error {
                    progress.clear()
                    StandardStream.error.write("scanpick: \(TerminalText.printable(report.file)): \(describe(error))\n")
                }
                if scorer == nil { StandardStream.output.write(bytes: report.textLines) }
            }
        }
        progress.clear()
        let scorecard = scorer?.scorecard()
        if let scorecard {
            let text = (scorecard.mismatchLines + [scorecard.table]).joined(separator: "\n") + "\n"
            if json { StandardStream.error.write(text) } else { StandardStream.output.write(text) }
        }
        if !arguments[\.quiet] {
            StandardStream.output.flush()
            StandardStream.error.write(tally.summary(seconds: start.secondsSince) + "\n")
        }
        // With a manifest, a mismatch comes first; a file that could not be read still fails the
        // run when the manifest does not list it.
        if let scorecard { return scorecard.allMatch ? (tally.unreadable > 0 ? 1 : 0) : 3 }
        return tally.exitCode
    }

    /// The loader's words, with the option that sets a limit it names.
    private static func describe(_ error: ImageLoadError) -> String {
        if case .tooManyPixels = error { return "\(error) (--max-pixels)" }
        return error.description
    }
}

extension ContinuousClock.Instant {
    var secondsSince: Double {
        let elapsed = ContinuousClock.now - self
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
