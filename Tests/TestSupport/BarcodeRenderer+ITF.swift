extension BarcodeRenderer {
    /// An Interleaved 2 of 5 image of an even count of `digits` (no check digit is added), with
    /// quiet zones of 10 modules, black on white: the first digit of each pair in the bars, the
    /// second in the spaces between them, wide elements `ratio` modules wide. ITF has no checksum
    /// of its own, so it is the linear code most easily misread: a test of a reader's strictness.
    public static func itf(_ digits: String, moduleWidth: Int = 2, ratio: Int = 3, height: Int = 80)
        -> (width: Int, height: Int, pixels: [UInt8])
    {
        let values = digits.compactMap { $0.wholeNumberValue }
        precondition(values.count.isMultiple(of: 2) && values.count == digits.count, "an even count of digits")
        // Element widths in modules, bar first, alternating bar and space.
        var elements = [1, 1, 1, 1]
        for pair in stride(from: 0, to: values.count, by: 2) {
            let bars = itfPatterns[values[pair]]
            let spaces = itfPatterns[values[pair + 1]]
            for (bar, space) in zip(bars, spaces) {
                elements += [bar == "W" ? ratio : 1, space == "W" ? ratio : 1]
            }
        }
        elements += [ratio, 1, 1]
        var modules = [Bool](repeating: false, count: 10)
        for (index, width) in elements.enumerated() {
            modules += [Bool](repeating: index.isMultiple(of: 2), count: width)
        }
        modules += [Bool](repeating: false, count: 10)

        let width = modules.count * moduleWidth
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (index, isBar) in modules.enumerated() where isBar {
            for y in 8..<(height - 8) {
                for x in (index * moduleWidth)..<((index + 1) * moduleWidth) { pixels[y * width + x] = 0 }
            }
        }
        return (width, height, pixels)
    }

    private static let itfPatterns: [[Character]] = [
        "NNWWN", "WNNNW", "NWNNW", "WWNNN", "NNWNW", "WNWNN", "NWWNN", "NNNWW", "WNNWN", "NWNWN",
    ].map(Array.init)
}
