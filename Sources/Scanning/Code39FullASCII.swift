/// Code 39's Full ASCII mode: two-character shifts (`+A` = `a`, `/A` = `!`, `$M` = CR) that let its
/// 43 characters spell all 128 of ASCII, for ``ReaderOptions/code39FullASCII``.
///
/// ZBar reports the characters as printed. A plain Code 39 may hold `+A` meaning just that, and
/// nothing in the symbol says which mode it is, so decoding is opt-in, as in zxing. A shift that
/// Full ASCII does not define means the code is not Full ASCII: its text is kept as printed.
enum Code39FullASCII {
    /// `printed` with its shifts decoded, or nil when it has a shift Full ASCII does not define.
    static func decode(_ printed: [UInt8]) -> [UInt8]? {
        var decoded: [UInt8] = []
        var index = printed.startIndex
        while index < printed.endIndex {
            let shift = printed[index]
            guard "$%/+".utf8.contains(shift) else {
                decoded.append(shift)
                index += 1
                continue
            }
            guard index + 1 < printed.endIndex, let character = expand(shift, printed[index + 1]) else { return nil }
            decoded.append(character)
            index += 2
        }
        return decoded
    }

    /// The ASCII character of shift `shift` followed by `letter`, or nil when undefined.
    private static func expand(_ shift: UInt8, _ letter: UInt8) -> UInt8? {
        let (a, z) = (UInt8(ascii: "A"), UInt8(ascii: "Z"))
        guard (a...z).contains(letter) else { return nil }
        let offset = letter - a
        switch UInt8(shift) {
        case UInt8(ascii: "+"): return UInt8(ascii: "a") + offset
        case UInt8(ascii: "$"): return 1 + offset
        case UInt8(ascii: "/"):
            if letter == UInt8(ascii: "Z") { return UInt8(ascii: ":") }
            return offset <= 14 ? UInt8(ascii: "!") + offset : nil
        default:  // "%"
            let table: [UInt8] =
                Array(0x1B...0x1F) + Array(";<=>?[\\]^_{|}~".utf8) + [0x7F, 0, 0x40, 0x60, 0x7F, 0x7F, 0x7F]
            return table[Int(offset)]
        }
    }
}
