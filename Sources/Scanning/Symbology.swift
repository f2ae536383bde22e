import CZBar
import Foundation

/// A barcode symbology ZBar can read, with ZBar's two spellings of it: the display name it prints
/// (`EAN-13`, `QR-Code`, …) and the configuration name its tools accept (`ean13`, `qrcode`, …).
public enum Symbology: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    case ean8, ean13, upca, upce, isbn10, isbn13, ean2, ean5
    case i25, databar, databarExpanded = "databar-exp", codabar, code39, code93, code128
    case qrcode, sqcode

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
        }
    }

    /// ZBar's configuration name (`ean13`, `databar-exp`, …).
    public var configName: String { rawValue }

    public var description: String { displayName }

    /// The symbologies a reader looks for unless told otherwise: ZBar's own defaults (ISBN off),
    /// with UPC-A and UPC-E reported as themselves rather than as EAN-13.
    public static let defaults: Set<Symbology> = Set(allCases).subtracting([.isbn10, .isbn13])

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
        "databar-expanded": .databarExpanded,
    ]

    /// ZBar's enum value for this symbology.
    var zbarType: zbar_symbol_type_t {
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
        }
    }

    init?(zbarType: zbar_symbol_type_t) {
        guard let match = Self.allCases.first(where: { $0.zbarType == zbarType }) else { return nil }
        self = match
    }
}

/// A name in a symbology list that is not one of ZBar's configuration names.
public struct SymbologyListError: Error, Equatable, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String {
        "unknown symbology '\(name)'; known: \(Symbology.allCases.map(\.configName).joined(separator: ", ")), all"
    }
}
