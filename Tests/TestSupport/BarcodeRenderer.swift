/// Draws EAN-13 barcodes, with an EAN-2 or EAN-5 add-on if asked, as grey pixels, so tests can
/// make the images they decode instead of trusting a file. Independent of ZBar: the encoding tables
/// are GS1's.
///
///     let pixels = BarcodeRenderer.ean13("590123412345", moduleWidth: 3, height: 80)
///     let book = BarcodeRenderer.ean13("978073520044", addOn: "51299")
public enum BarcodeRenderer {
    /// An EAN-13 image (12 digits, the check digit is added) with quiet zones, black on white, and
    /// after a 9-module gap the 2- or 5-digit `addOn`: returns width, height and row-major grey pixels.
    public static func ean13(_ twelveDigits: String, addOn: String? = nil, moduleWidth: Int = 3, height: Int = 80)
        -> (width: Int, height: Int, pixels: [UInt8])
    {
        let digits = twelveDigits.compactMap { $0.wholeNumberValue }
        precondition(digits.count == 12, "twelve digits")
        let all = digits + [checkDigit(digits)]
        var modules: [Bool] = Array(repeating: false, count: 11)  // left quiet zone
        modules += [true, false, true]
        let parity = firstDigitParity[all[0]]
        for (index, digit) in all[1...6].enumerated() {
            let pattern = parity[index] == "L" ? lCodes[digit] : gCodes[digit]
            modules += pattern.map { $0 == "1" }
        }
        modules += [false, true, false, true, false]
        for digit in all[7...12] { modules += rCodes[digit].map { $0 == "1" } }
        modules += [true, false, true]
        if let addOn {
            modules += Array(repeating: false, count: 9)
            modules += addOnModules(addOn.compactMap { $0.wholeNumberValue })
        }
        modules += Array(repeating: false, count: 11)  // right quiet zone

        let width = modules.count * moduleWidth
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (index, isBar) in modules.enumerated() where isBar {
            for y in 8..<(height - 8) {
                for x in (index * moduleWidth)..<((index + 1) * moduleWidth) { pixels[y * width + x] = 0 }
            }
        }
        return (width, height, pixels)
    }

    /// An EAN-2 or EAN-5 add-on: guard 1011, then the digits in L or G codes (the pattern chosen by
    /// the value for EAN-2, by a weighted checksum for EAN-5), separated by 01.
    static func addOnModules(_ digits: [Int]) -> [Bool] {
        precondition(digits.count == 2 || digits.count == 5, "an add-on has 2 or 5 digits")
        let parity: [Character]
        if digits.count == 2 {
            parity = Array(["LL", "LG", "GL", "GG"][(digits[0] * 10 + digits[1]) % 4])
        } else {
            let checksum = (3 * (digits[0] + digits[2] + digits[4]) + 9 * (digits[1] + digits[3])) % 10
            parity = Array(
                ["GGLLL", "GLGLL", "GLLGL", "GLLLG", "LGGLL", "LLGGL", "LLLGG", "LGLGL", "LGLLG", "LLGLG"][checksum])
        }
        var modules: [Bool] = [true, false, true, true]
        for (index, digit) in digits.enumerated() {
            if index > 0 { modules += [false, true] }
            modules += (parity[index] == "L" ? lCodes[digit] : gCodes[digit]).map { $0 == "1" }
        }
        return modules
    }

    /// The GS1 check digit of the digits before it.
    public static func checkDigit(_ digits: [Int]) -> Int {
        let sum = digits.reversed().enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    private static let lCodes = [
        "0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011",
    ]
    private static let gCodes = [
        "0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001", "0010111",
    ]
    private static let rCodes = [
        "1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100", "1001000", "1110100",
    ]
    private static let firstDigitParity: [[Character]] = [
        "LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL",
    ].map(Array.init)
}
