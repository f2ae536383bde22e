import ArgumentParsing
import BatchDecoding
import Foundation

/// `scanpick score`: scores results written earlier (ours, or another decoder's converted to the
/// same JSON lines) against a manifest, so two decoders are judged by one set of rules.
enum ScoreCommand: Command {
    struct Arguments: CommandArguments {
        var expect = Option<String>("expect", valueName: "MANIFEST", help: "The CSV manifest (file,symbology,data).")
        var tableOnly = Flag("table-only", help: "Print only the table, not the mismatching images.")
        var json = Flag(
            "json",
            help:
                "Print the totals as JSON: images, correct, missed, misread, falsePositives, and codeImages, codeCorrect, noCodeImages (images with and without a code)."
        )
        var results = Argument<String>("RESULTS", help: "A file of JSON lines, or - for standard input.")
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "score",
            abstract: "Score JSON-lines decode results against a manifest.",
            discussion: """
                RESULTS holds lines in the shape of 'scanpick decode --json' ("-" reads standard input).
                Prints the images that did not match and the per-symbology table; with --json, the totals
                as one JSON object. Exit code 0 when every scored image matched, 3 otherwise, and 1
                when no result names an image of the manifest (its paths are compared as written,
                from the current folder): nothing scored is not a pass.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let manifest = try Manifest(contentsOf: arguments[\.expect])
        let source = arguments[\.results]
        let data =
            source == "-"
            ? DescriptorReading.readToEnd(STDIN_FILENO)
            : try Data(contentsOf: URL(fileURLWithPath: source))
        var scorer = ExpectationScorer(manifest: manifest)
        var results = 0
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.isEmpty {
            scorer.record(try ImageReport(jsonLine: String(line)))
            results += 1
        }
        let card = scorer.scorecard()
        guard card.total.images > 0 else {
            StandardStream.error.write(
                "scanpick score: none of the \(results) results names an image of the manifest "
                    + "(\(manifest.entries.count) rows); a result's file is compared as written, from this folder, "
                    + "with the manifest's paths (relative to the manifest): decode from the same folder you score in\n"
            )
            return 1
        }
        if arguments[\.json] {
            let (total, withCode) = (card.total, card.withCode)
            StandardStream.output.write(
                "{\"images\":\(total.images),\"correct\":\(total.correct),\"missed\":\(total.missed),"
                    + "\"misread\":\(total.misread),\"falsePositives\":\(total.falsePositives),"
                    + "\"codeImages\":\(withCode.images),\"codeCorrect\":\(withCode.correct),"
                    + "\"noCodeImages\":\(card.withoutCode.images)}\n")
        } else {
            let lines = (arguments[\.tableOnly] ? [] : card.mismatchLines) + [card.table]
            StandardStream.output.write(lines.joined(separator: "\n") + "\n")
        }
        return card.allMatch ? 0 : 3
    }
}
