import Foundation
import GS1
import Imaging
import JSONText
import Scanning

extension ImageReport {
    /// The report as one line of `scanpick decode --json`:
    /// `{"file", "symbols": [{"symbology", "data", "quality", "points", "orientation", "gs1"?}], "ms", "error"?}`.
    /// A payload that is not UTF-8 text is base64 with `"dataEncoding": "base64"` beside it. A GS1
    /// symbol has `"gs1": {"01": "…", "17": "YYYY-MM-DD", …}` (its elements in order, dates as dates),
    /// or `"gs1Error"` saying why its data breaks the standard.
    public var jsonLine: String { jsonLine(describingError: \.description) }

    /// The JSON line with the error (if any) in the caller's words (a command adds its option's name).
    public func jsonLine(describingError describe: (ImageLoadError) -> String) -> String {
        var object = JSONObjectWriter()
        object.add("file", string: file)
        object.add("symbols", raw: "[" + barcodes.map(\.jsonObject).joined(separator: ",") + "]")
        object.add("ms", milliseconds: milliseconds)
        if let error {
            object.add("error", string: describe(error))
        }
        return object.finished()
    }
}

extension Barcode {
    var jsonObject: String {
        var object = JSONObjectWriter()
        object.add("symbology", string: symbology.displayName)
        if let text {
            object.add("data", string: text)
        } else {
            object.add("data", string: Data(payload).base64EncodedString())
            object.add("dataEncoding", string: "base64")
        }
        object.add("quality", number: quality)
        object.add("points", raw: "[" + points.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]")
        object.add("orientation", string: orientation.rawValue)
        if isGS1, let text {
            do {
                var elements = JSONObjectWriter()
                for element in try GS1ElementString(parsing: text).reported {
                    elements.add(element.ai, string: element.value)
                }
                object.add("gs1", raw: elements.finished())
            } catch {
                object.add("gs1Error", string: error.description)
            }
        }
        return object.finished()
    }
}

extension ImageReport {
    /// Reads back one line of `scanpick decode --json` (or another decoder's output converted to it),
    /// keeping what scoring needs: file, symbols with symbology and data, and the error.
    public init(jsonLine line: String) throws(ReportLineError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let file = object["file"] as? String
        else { throw ReportLineError(line: line, reason: "not a JSON object with a \"file\" string") }
        var barcodes: [Barcode] = []
        for symbol in object["symbols"] as? [[String: Any]] ?? [] {
            guard let name = symbol["symbology"] as? String, let data = symbol["data"] as? String else {
                throw ReportLineError(line: line, reason: "a symbol needs \"symbology\" and \"data\" strings")
            }
            guard let symbology = Symbology(displayName: name) else {
                throw ReportLineError(line: line, reason: "unknown symbology \"\(name)\"")
            }
            let payload =
                symbol["dataEncoding"] as? String == "base64"
                ? [UInt8](Data(base64Encoded: data) ?? Data()) : Array(data.utf8)
            barcodes.append(Barcode(symbology: symbology, payload: payload))
        }
        let error = (object["error"] as? String).map { ImageLoadError.unreadable(reason: $0) }
        self.init(file: file, barcodes: barcodes, milliseconds: object["ms"] as? Double ?? 0, error: error)
    }
}

/// A results line that `ImageReport(jsonLine:)` cannot read.
public struct ReportLineError: Error, CustomStringConvertible {
    public var line: String
    public var reason: String
    public var description: String { "\(reason): \(line.prefix(120))" }
}
