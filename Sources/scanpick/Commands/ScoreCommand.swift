import ArgumentParsing
import BatchDecoding
import Foundation

/// `scanpick score`: scores results written earlier (ours, or another decoder's converted to the
/// same JSON lines) against a manifest, so two decoders are judged by one set of rules.
enum ScoreCommand: Command {
    static let spec = CommandSpec(
        name: "score",
        abstract: "Score JSON-lines decode results against a manifest.",
        discussion: """
            RESULTS holds lines in the shape of 'scanpick decode --json' ("-" reads standard input).
            Prints the images that did not match and the per-symbology table; with --json, the totals
            as one JSON object. Exit code 0 when every scored image matched, 3 otherwise.
            """,
        options: [
            .value("expect", valueName: "MANIFEST", help: "The CSV manifest (file,symbology,data). Required."),
            .flag("table-only", help: "Print only the table, not the mismatching images."),
            .flag(
                "json",
                help:
                    "Print the totals as JSON: images, correct, missed, misread, falsePositives, and codeImages, codeCorrect, noCodeImages (images with and without a code)."
            ),
        ],
        arguments: [ArgumentSpec(name: "RESULTS", help: "A file of JSON lines, or - for standard input.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let manifestPath = arguments.value("expect") else { throw UsageError("--expect MANIFEST is required") }
        let manifest = try Manifest(contentsOf: manifestPath)
        let source = arguments.positionals[0]
        let data =
            source == "-"
            ? FileHandle.standardInput.readDataToEndOfFile()
            : try Data(contentsOf: URL(fileURLWithPath: source))
        var scorer = ExpectationScorer(manifest: manifest)
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.isEmpty {
            scorer.record(try ImageReport(jsonLine: String(line)))
        }
        let card = scorer.scorecard()
        if arguments.has("json") {
            let (total, withCode) = (card.total, card.withCode)
            StandardStream.output.write(
                "{\"images\":\(total.images),\"correct\":\(total.correct),\"missed\":\(total.missed),"
                    + "\"misread\":\(total.misread),\"falsePositives\":\(total.falsePositives),"
                    + "\"codeImages\":\(withCode.images),\"codeCorrect\":\(withCode.correct),"
                    + "\"noCodeImages\":\(card.withoutCode.images)}\n")
        } else {
            let lines = (arguments.has("table-only") ? [] : card.mismatchLines) + [card.table]
            StandardStream.output.write(lines.joined(separator: "\n") + "\n")
        }
        return card.allMatch ? 0 : 3
    }
}
