import Foundation

/// Counts over a batch's reports for its closing summary and exit code (zbarimg's conventions).
///
///     var tally = DecodeTally()
///     decoder.run(inputs) { tally.add($0) }
///     print(tally.summary(seconds: 0.4)); exit(tally.exitCode)
public struct DecodeTally: Sendable, Equatable {
    public private(set) var images = 0
    public private(set) var symbols = 0
    public private(set) var unreadable = 0
    public private(set) var withoutCode = 0

    public init() {}

    public mutating func add(_ report: ImageReport) {
        images += 1
        symbols += report.barcodes.count
        if report.error != nil {
            unreadable += 1
        } else if report.barcodes.isEmpty {
            withoutCode += 1
        }
    }

    /// 1 if a file could not be read, else 4 if an image had no code, else 0.
    public var exitCode: Int32 { unreadable > 0 ? 1 : (withoutCode > 0 ? 4 : 0) }

    /// `scanned 52 barcode symbols from 55 images in 0.41 seconds; 3 without a code`.
    public func summary(seconds: Double) -> String {
        var text =
            "scanned \(symbols) barcode symbols from \(images) images in \(String(format: "%.2f", seconds)) seconds"
        if withoutCode > 0 { text += "; \(withoutCode) without a code" }
        if unreadable > 0 { text += "; \(unreadable) could not be read" }
        return text
    }
}

extension ImageReport {
    /// zbarimg's text output: `SYMBOLOGY:DATA` per code, payload bytes as decoded.
    public var textLines: [UInt8] {
        barcodes.flatMap { Array("\($0.symbology.displayName):".utf8) + $0.payload + [0x0A] }
    }
}

extension Manifest {
    /// The images the manifest lists, each once, in its order (an image with several codes has several rows).
    public var imagePaths: [String] {
        var seen = Set<String>()
        return entries.map(\.path).filter { seen.insert($0).inserted }
    }
}
