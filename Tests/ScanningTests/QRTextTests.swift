import Testing

@testable import Scanning

/// The character-set choice for QR byte segments.
@Suite struct QRTextTests {
    @Test func validUTF8IsKeptAsItIs() {
        let text = "MECARD:N:測試;;"
        #expect(QRText.utf8(from: Array(text.utf8)) == Array(text.utf8))
    }

    @Test func shiftJISHalfWidthKatakanaIsReadAsShiftJIS() {
        // ﾃﾞｻﾞｲﾝQR in Shift-JIS: single bytes 0xA1–0xDF, never valid UTF-8.
        let bytes: [UInt8] = [0xC3, 0xDE, 0xBB, 0xDE, 0xB2, 0xDD, 0x51, 0x52]
        #expect(String(decoding: QRText.utf8(from: bytes), as: UTF8.self) == "ﾃﾞｻﾞｲﾝQR")
    }

    @Test func shiftJISKanjiIsReadAsShiftJIS() {
        // 日本 in Shift-JIS.
        let bytes: [UInt8] = [0x93, 0xFA, 0x96, 0x7B]
        #expect(String(decoding: QRText.utf8(from: bytes), as: UTF8.self) == "日本")
    }

    @Test func anythingElseIsLatin1() {
        // "café" in ISO-8859-1 ends in a Shift-JIS lead byte with nothing after it.
        let bytes: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
        #expect(String(decoding: QRText.utf8(from: bytes), as: UTF8.self) == "café")
    }
}
