import Foundation
import GS1
import Scanning

/// Compares decoding reports with a ``Manifest`` and tallies, per expected symbology, how many
/// images were read correctly, missed (nothing reported), misread (something, but not what was
/// expected; an image listed on several rows must show all of their codes),
/// and how many no-code images had a false positive.
///
/// Readings are compared after aligning output conventions, the corpus's rules: UPC-A, UPC-E and
/// EAN-13 as their 13-digit GTIN; an EAN-2/EAN-5 add-on appended to its main code
/// without a space (a decoder must join them itself: two separate symbols are not one reading); Codabar without
/// its start/stop letters; GS1 brackets and group separators dropped; CRLF line breaks as LF
/// (zbarimg's XML output cannot carry a CR).
///
///     var scorer = ExpectationScorer(manifest: manifest)
///     scorer.record(report)
///     print(scorer.scorecard().table)
public struct ExpectationScorer: Sendable {
    /// Manifest rows by image path; an image with several rows must show every one of its codes.
    private var expected: [String: [Manifest.Entry]] = [:]
    private var tallies: [String: Scorecard.Row] = [:]
    private var mismatches: [Scorecard.Mismatch] = []
    private var unlisted = 0
    private var scored = Set<String>()

    public init(manifest: Manifest) {
        for entry in manifest.entries { expected[entry.path, default: []].append(entry) }
    }

    /// Scores one report; a file the manifest does not list is counted as unlisted.
    public mutating func record(_ report: ImageReport) {
        let path = URL(fileURLWithPath: report.file).standardizedFileURL.path
        guard let entries = expected[path], let entry = entries.first else {
            unlisted += 1
            return
        }
        scored.insert(path)
        let key = entry.expectsNoCode ? Scorecard.noCodeLabel : entry.symbology
        var row = tallies[key] ?? Scorecard.Row(symbology: key)
        row.images += 1
        let readings = Self.readings(of: report.barcodes)
        let verdict: Scorecard.Verdict
        if entry.expectsNoCode {
            verdict = readings.isEmpty ? .correct : .falsePositive
        } else if readings.isEmpty {
            verdict = .missed
        } else {
            let found = Set(readings.map(\.canonical))
            let allFound = entries.allSatisfy { found.contains(Self.canonical($0.data, symbology: $0.symbology)) }
            verdict = allFound ? .correct : .misread
        }
        row.count(verdict)
        tallies[key] = row
        if verdict != .correct {
            mismatches.append(
                Scorecard.Mismatch(
                    file: report.file, verdict: verdict, expected: entries.map(\.data).joined(separator: " + "),
                    expectedSymbology: entries.map(\.symbology).joined(separator: " + "),
                    found: readings.map(\.shown), error: report.error?.description))
        }
    }

    /// The tallies so far; manifest entries never decoded are listed as `notDecoded`.
    public func scorecard() -> Scorecard {
        // Symbologies alphabetically, the no-code row last.
        func sortKey(_ row: Scorecard.Row) -> (Int, String) {
            (row.symbology == Scorecard.noCodeLabel ? 1 : 0, row.symbology)
        }
        let rows = tallies.values.sorted { sortKey($0) < sortKey($1) }
        let notDecoded = expected.filter { !scored.contains($0.key) }.compactMap(\.value.first?.file).sorted()
        return Scorecard(rows: rows, mismatches: mismatches, unlisted: unlisted, notDecoded: notDecoded)
    }

    /// What a report's codes say, as shown to people and as compared.
    static func readings(of barcodes: [Barcode]) -> [(shown: String, canonical: String)] {
        barcodes.map { barcode in
            let text = barcode.text ?? Data(barcode.payload).base64EncodedString()
            return (
                "\(barcode.symbology.displayName):\(text)", canonical(text, symbology: barcode.symbology.displayName)
            )
        }
    }

    /// `text` in the comparison form for `symbology` (a ZBar or manifest symbology name).
    static func canonical(_ text: String, symbology: String) -> String {
        var text = text.replacingOccurrences(of: "\u{1D}", with: "").replacingOccurrences(of: "\r\n", with: "\n")
        switch symbology {
        case _ where mainCodeLengths[symbology.replacingOccurrences(of: "+addon", with: "")] != nil:
            return canonicalEANUPC(text, symbology: symbology.replacingOccurrences(of: "+addon", with: ""))
        case "Codabar":
            let stops: Set<Character> = ["A", "B", "C", "D", "a", "b", "c", "d"]
            if let first = text.first, stops.contains(first) { text.removeFirst() }
            if let last = text.last, stops.contains(last) { text.removeLast() }
            return text
        case _ where symbology.hasPrefix("DataBar"):
            return text.filter { $0 != "(" && $0 != ")" }
        default:
            return text
        }
    }

    /// Digits of each EAN/UPC main code, as decoders print it or as its 13-digit GTIN.
    private static let mainCodeLengths: [String: Set<Int>] = [
        "EAN-13": [13], "UPC-A": [12, 13], "UPC-E": [8, 13], "EAN-8": [8],
    ]

    /// An EAN/UPC reading as GTIN-13 (EAN-8 stays 8 digits) followed by its add-on, if any; a space
    /// between main code and add-on is dropped.
    private static func canonicalEANUPC(_ text: String, symbology: String) -> String {
        let digits = text.filter { $0 != " " }
        let lengths = mainCodeLengths[symbology] ?? []
        var main = digits
        var addOn = ""
        if !lengths.contains(digits.count),
            let addOnLength = [5, 2].first(where: { lengths.contains(digits.count - $0) })
        {
            main = String(digits.dropLast(addOnLength))
            addOn = String(digits.suffix(addOnLength))
        }
        let gtin = symbology == "EAN-8" ? main : GTIN.normalised(main) ?? main
        return gtin + addOn
    }
}
