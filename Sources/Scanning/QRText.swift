import Foundation

/// The text of a QR code, from the bytes ZBar hands over in binary mode.
///
/// A QR code's byte segments carry no reliable character set: the standard says ISO-8859-1, Japanese
/// encoders write Shift-JIS, and nearly everyone else writes UTF-8. ZBar's own guess gets Shift-JIS
/// half-width katakana and UTF-8 CJK text wrong, so the reader takes the raw bytes and chooses,
/// as zxing does: UTF-8 when the bytes are valid UTF-8, else Shift-JIS when they are valid
/// Shift-JIS, else ISO-8859-1, which every byte string is.
enum QRText {
    /// `bytes` as UTF-8 text.
    static func utf8(from bytes: [UInt8]) -> [UInt8] {
        if String(validating: bytes, as: UTF8.self) != nil { return bytes }
        let data = Data(bytes)
        if let text = String(data: data, encoding: .shiftJIS) { return Array(text.utf8) }
        return Array(String(decoding: bytes.map { UInt16($0) }, as: UTF16.self).utf8)
    }
}
