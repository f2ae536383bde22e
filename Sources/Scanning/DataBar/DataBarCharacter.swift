/// The symbol characters of GS1 DataBar Expanded (ISO/IEC 24724): data characters of 8 elements in
/// 17 modules, and finder patterns of 5 elements in 15 modules, read from measured element widths.
enum DataBarCharacter {
    /// One data character: its value (0–4096) and its share of the symbol's mod-211 checksum.
    struct Value: Hashable {
        var value: Int
        var checksum: Int
    }

    /// The six finder patterns A–F as printed left to right in a pair that reads forward; a pair that
    /// reads backward shows them reversed.
    static let finders: [[Int]] = [
        [1, 8, 4, 1, 1], [3, 6, 4, 1, 1], [3, 4, 6, 1, 1], [3, 2, 8, 1, 1], [2, 6, 5, 1, 1], [2, 2, 9, 1, 1],
    ]

    /// The finder patterns forward then reversed, for ``finder(_:)``.
    private static let finderPatterns: [(finder: Int, modules: [Int])] =
        finders.enumerated().map { ($0.offset + 1, $0.element) }
        + finders.enumerated().map { (-($0.offset + 1), Array($0.element.reversed())) }

    /// The finder that `widths` (5 elements, left to right) show: 1…6 for A…F read forward, −1…−6 for
    /// A…F reversed, or nil. Every element must be within half a module of its pattern's count.
    static func finder(_ widths: ArraySlice<Int>) -> Int? {
        guard widths.count == 5 else { return nil }
        let total = widths.reduce(0, +)
        guard total >= 15 else { return nil }
        // Every finder ends in two one-module elements (forward) or starts with two (reversed).
        let narrow = { (width: Int) in 30 * width < 3 * total }
        let first = widths.startIndex
        guard
            (narrow(widths[first + 3]) && narrow(widths[first + 4]))
                || (narrow(widths[first]) && narrow(widths[first + 1]))
        else { return nil }
        // |width / (total / 15) - modules| < 0.5, in integers: |30 width - 2 modules total| < total.
        search: for pattern in finderPatterns {
            for (width, modules) in zip(widths, pattern.modules) where abs(30 * width - 2 * modules * total) >= total {
                continue search
            }
            return pattern.finder
        }
        return nil
    }

    /// The data character in `widths` (8 elements, outer end first) beside a finder `finder` (signed,
    /// as ``finder(_:)``), on the finder's right side when `right`, or nil when the widths cannot be a
    /// character. `module` is the finder's module width: a character of another size is refused.
    static func read(_ widths: [Int], finder: Int, right: Bool, module: Double) -> Value? {
        guard widths.count == 8 else { return nil }
        let own = Double(widths.reduce(0, +)) / 17
        guard abs(own - module) / module <= 0.3 else { return nil }
        guard let counts = moduleCounts(widths, module: own) else { return nil }
        let odd = [counts[0], counts[2], counts[4], counts[6]]
        let even = [counts[1], counts[3], counts[5], counts[7]]
        let oddSum = odd.reduce(0, +)
        guard oddSum % 2 == 0, (4...12).contains(oddSum) else { return nil }
        let group = (13 - oddSum) / 2
        let oddWidest = [7, 5, 4, 3, 1][group]
        let value =
            rssValue(odd, maxWidth: oddWidest, noNarrow: true) * [4, 20, 52, 104, 204][group]
            + rssValue(even, maxWidth: 9 - oddWidest, noNarrow: false) + [0, 348, 1388, 2948, 3988][group]
        let row = 4 * (abs(finder) - 1) + (finder < 0 ? 2 : 0) + (right ? 1 : 0)
        let checksum = counts.enumerated().reduce(0) { $0 + $1.element * weight(row: row, position: $1.offset) }
        return Value(value: value, checksum: checksum)
    }

    /// Module counts (1–8 each, 17 in all, odd elements summing to an even number) for measured widths,
    /// correcting one rounding the way the widths lean most; nil when that is not enough.
    private static func moduleCounts(_ widths: [Int], module: Double) -> [Int]? {
        let exact = widths.map { Double($0) / module }
        var counts = exact.map { min(8, max(1, Int($0.rounded()))) }
        func adjust(odd: Bool, by step: Int) {
            let candidates = stride(from: odd ? 0 : 1, to: 8, by: 2).filter { (1...8).contains(counts[$0] + step) }
            // Grow the element most under-counted, shrink the one most over-counted.
            if let pick = candidates.max(by: {
                (exact[$0] - Double(counts[$0])) * Double(step) < (exact[$1] - Double(counts[$1])) * Double(step)
            }) {
                counts[pick] += step
            }
        }
        let oddSum = stride(from: 0, to: 8, by: 2).reduce(0) { $0 + counts[$1] }
        let oddBad = oddSum % 2 == 1
        switch counts.reduce(0, +) - 17 {
        case 0:
            if oddBad {
                let evenSum = 17 - oddSum
                adjust(odd: true, by: oddSum < evenSum ? 1 : -1)
                adjust(odd: false, by: oddSum < evenSum ? -1 : 1)
            }
        case 1: adjust(odd: oddBad, by: -1)
        case -1: adjust(odd: oddBad, by: 1)
        default: return nil
        }
        return counts.reduce(0, +) == 17 ? counts : nil
    }

    /// The checksum weight of element `position` (0–7) of the character in weight row `row`: successive
    /// powers of 3 modulo 211, eight per row; row 0 is the check character itself, which counts nothing.
    static func weight(row: Int, position: Int) -> Int {
        guard row > 0 else { return 0 }
        return weights[8 * (row - 1) + position]
    }

    private static let weights: [Int] = {
        var powers: [Int] = []
        var power = 1
        for _ in 0..<(23 * 8) {
            powers.append(power)
            power = power * 3 % 211
        }
        return powers
    }()

    /// The value of `widths` among all width sequences of the same length and sum whose elements are at
    /// most `maxWidth` (and, with `noNarrow`, not all above one module): the RSS combinatorial
    /// numbering of ISO/IEC 24724, Annex B.
    static func rssValue(_ widths: [Int], maxWidth: Int, noNarrow: Bool) -> Int {
        var remaining = widths.reduce(0, +)
        let elements = widths.count
        var value = 0
        var narrowMask = 0
        for bar in 0..<(elements - 1) {
            var width = 1
            narrowMask |= 1 << bar
            while width < widths[bar] {
                var subValue = combinations(remaining - width - 1, elements - bar - 2)
                if noNarrow && narrowMask == 0
                    && remaining - width - (elements - bar - 1) >= elements - bar - 1
                {
                    subValue -= combinations(remaining - width - (elements - bar), elements - bar - 2)
                }
                if elements - bar - 1 > 1 {
                    var lessValue = 0
                    var widest = remaining - width - (elements - bar - 2)
                    while widest > maxWidth {
                        lessValue += combinations(remaining - width - widest - 1, elements - bar - 3)
                        widest -= 1
                    }
                    subValue -= lessValue * (elements - 1 - bar)
                } else if remaining - width > maxWidth {
                    subValue -= 1
                }
                value += subValue
                width += 1
                narrowMask &= ~(1 << bar)
            }
            remaining -= width
        }
        return value
    }

    /// n choose r (0 when r is out of range).
    private static func combinations(_ n: Int, _ r: Int) -> Int {
        guard r >= 0, r <= n else { return 0 }
        let r = min(r, n - r)
        var result = 1
        for step in 0..<r { result = result * (n - step) / (step + 1) }
        return result
    }
}
