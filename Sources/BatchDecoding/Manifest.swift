import Foundation

/// Expected decoding results for a set of images: a CSV file with the header `file,symbology,data`,
/// `file` relative to the manifest, one row per image. An empty `data` means no code may be found
/// in that image. `../shared/corpus/manifest.csv` and `SampleImages/manifest.csv` have this shape.
///
///     let manifest = try Manifest(contentsOf: "SampleImages/manifest.csv")
public struct Manifest: Sendable {
    /// One image's expectation.
    public struct Entry: Sendable, Equatable {
        /// The path as written in the manifest.
        public var file: String
        /// The image's absolute, standardised path.
        public var path: String
        /// Expected symbology name as written (`EAN-13`, `UPC-A+addon`, …); empty for no code.
        public var symbology: String
        /// Expected payload; empty when no code may be found.
        public var data: String

        public var expectsNoCode: Bool { data.isEmpty }
    }

    public var entries: [Entry]

    /// Reads and checks the manifest at `path`.
    public init(contentsOf path: String) throws(ManifestError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .unreadable(path: path, reason: "no such file")
        }
        guard !isFolder.boolValue else {
            throw .unreadable(path: path, reason: "it is a folder: name the CSV file (file,symbology,data) in it")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: "it is not readable UTF-8 text (\(error.localizedDescription))")
        }
        let base = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        try self.init(csv: text, baseDirectory: base.path, source: path)
    }

    /// Parses manifest text whose relative paths are relative to `baseDirectory`.
    public init(csv text: String, baseDirectory: String, source: String = "manifest") throws(ManifestError) {
        let records: [CSVReader.Record]
        do {
            records = try CSVReader.records(in: text)
        } catch {
            switch error {
            case .unterminatedQuote(let line):
                throw .badRow(path: source, line: line, reason: "a quoted field is never closed")
            }
        }
        guard let header = records.first, header.fields.map({ $0.lowercased() }) == ["file", "symbology", "data"]
        else { throw .badHeader(path: source) }
        let base = URL(fileURLWithPath: baseDirectory, isDirectory: true)
        entries = []
        for record in records.dropFirst() {
            if record.fields == [""] { continue }  // a blank line
            guard record.fields.count == 3, !record.fields[0].isEmpty else {
                throw .badRow(
                    path: source, line: record.line,
                    reason: "expected 3 fields (file,symbology,data), found \(record.fields.count)")
            }
            let file = record.fields[0]
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : base.appendingPathComponent(file)
            entries.append(
                Entry(
                    file: file, path: url.standardizedFileURL.path, symbology: record.fields[1],
                    data: record.fields[2]))
        }
    }
}

/// A manifest that cannot be used, with where and why.
public enum ManifestError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case badHeader(path: String)
    case badRow(path: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): cannot read manifest: \(reason)"
        case .badHeader(let path): "\(path): the first line must be the header 'file,symbology,data'"
        case .badRow(let path, let line, let reason): "\(path):\(line): \(reason)"
        }
    }
}
