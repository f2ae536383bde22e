import CZBar
import Foundation

/// A barcode symbology we read, with two spellings of it: the display name printed (`EAN-13`,
/// `QR-Code`, …, ZBar's for its own) and the configuration name the tools accept (`ean13`, `qrcode`,
/// …). ZBar reads all but Data Matrix, Aztec and PDF417, which zxing-cpp reads (``zbarLacks``).
public enum Symbology: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    case ean8, ean13, upca, upce, isbn10, isbn13, ean2, ean5
    case i25, databar, databarExpanded = "databar-exp", codabar, code39, code93, code128
    case qrcode, sqcode
    case dataMatrix = "datamatrix", aztec, pdf417

    /// ZBar's display name, as in zbarimg's `SYMBOLOGY:DATA` output.
    public var displayName: String {
        switch self {
        case .ean8: "EAN-8"
        case .ean13: "EAN-13"
        case .upca: "UPC-A"
        case .upce: "UPC-E"
        case .isbn10: "ISBN-10"
        case .isbn13: "ISBN-13"
        case .ean2: "EAN-2"
        case .ean5: "EAN-5"
        case .i25: "I2/5"
        case .databar: "DataBar"
        case .databarExpanded: "DataBar-Exp"
        case .codabar: "Codabar"
        case .code39: "CODE-39"
        case .code93: "CODE-93"
        case .code128: "CODE-128"
        case .qrcode: "QR-Code"
        case .sqcode: "SQ-Code"
        case .dataMatrix: "DataMatrix"
        case .aztec: "Aztec"
        case .pdf417: "PDF417"
        }
    }

    /// ZBar's configuration name (`ean13`, `databar-exp`, …).
    public var configName: String { rawValue }

    public var description: String { displayName }

    /// The symbologies a reader looks for unless told otherwise: ZBar's own defaults (ISBN off),
    /// with UPC-A and UPC-E reported as themselves rather than as EAN-13. Data Matrix, Aztec and
    /// PDF417 are asked for by name: each costs a look by zxing-cpp at every image or frame.
    public static let defaults: Set<Symbology> = Set(allCases).subtracting([.isbn10, .isbn13]).subtracting(zbarLacks)

    /// The symbologies ZBar has no decoder for; zxing-cpp reads them (see `ZXingReader`).
    public static let zbarLacks: Set<Symbology> = [.dataMatrix, .aztec, .pdf417]

    /// The codes libzbar reports only when read on several scan lines (see `BarcodeReader.leastLines`).
    static let checkedOnSeveralLines: Set<Symbology> = [
        .ean2, .ean5, .ean8, .upce, .isbn10, .upca, .ean13, .isbn13, .databar, .databarExpanded,
    ]

    /// EAN/UPC: one check digit guards each reading, and a wrong pair of digits can pass it, so a
    /// reading on few scan lines is weak evidence (see `BarcodeReader.crossChecked`).
    static let eanUPC: Set<Symbology> = [.ean13, .upca, .ean8, .upce]

    /// The symbology with ZBar display name `name` (`EAN-13`), or nil.
    public init?(displayName name: String) {
        guard let match = Self.allCases.first(where: { $0.displayName == name }) else { return nil }
        self = match
    }

    /// Parses a comma-separated list of configuration names (`ean13,upca,qrcode`); `all` stands for
    /// every symbology.
    public static func parseList(_ text: String) throws(SymbologyListError) -> Set<Symbology> {
        var result = Set<Symbology>()
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "all" {
                result.formUnion(allCases)
            } else if let symbology = Symbology(rawValue: name) ?? aliases[name] {
                result.insert(symbology)
            } else {
                throw SymbologyListError(name: String(raw))
            }
        }
        return result
    }

    private static let aliases: [String: Symbology] = [
        "ean-13": .ean13, "ean-8": .ean8, "upc-a": .upca, "upc-e": .upce, "code-128": .code128,
        "code-39": .code39, "code-93": .code93, "qr": .qrcode, "qr-code": .qrcode, "itf": .i25,
        "databar-expanded": .databarExpanded, "data-matrix": .dataMatrix, "dm": .dataMatrix, "pdf-417": .pdf417,
    ]

    /// ZBar's enum value for this symbology (nil: ZBar cannot read it).
    var zbarType: zbar_symbol_type_t? {
        switch self {
        case .ean8: ZBAR_EAN8
        case .ean13: ZBAR_EAN13
        case .upca: ZBAR_UPCA
        case .upce: ZBAR_UPCE
        case .isbn10: ZBAR_ISBN10
        case .isbn13: ZBAR_ISBN13
        case .ean2: ZBAR_EAN2
        case .ean5: ZBAR_EAN5
        case .i25: ZBAR_I25
        case .databar: ZBAR_DATABAR
        case .databarExpanded: ZBAR_DATABAR_EXP
        case .codabar: ZBAR_CODABAR
        case .code39: ZBAR_CODE39
        case .code93: ZBAR_CODE93
        case .code128: ZBAR_CODE128
        case .qrcode: ZBAR_QRCODE
        case .sqcode: ZBAR_SQCODE
        case .dataMatrix, .aztec, .pdf417: nil
        }
    }

    init?(zbarType: zbar_symbol_type_t) {
        guard let match = Self.allCases.first(where: { $0.zbarType == zbarType }) else { return nil }
        self = match
    }
}

/// A name in a symbology list that is not one of the configuration names.
public struct SymbologyListError: Error, Equatable, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String {
        "unknown symbology '\(name)'; known: \(Symbology.allCases.map(\.configName).joined(separator: ", ")), all"
    }
}
