extension BarcodeReader {
    /// What ``ReaderOptions/tryHarder`` does, in words generated from the passes themselves
    /// (``RetryPass/standard``, each pass's ``RetryPass/summary`` and conditions, and the size
    /// limits), so `scanpick decode --help` and docs/decode.md (checked by a test) cannot drift from it.
    public static var tryHarderDescription: String {
        tryHarderDescription(passes: RetryPass.standard)
    }

    static func tryHarderDescription(passes: [RetryPass]) -> String {
        let side = Int(Double(RetryPass.smallPictureLimit).squareRoot())
        let small = passes.filter(\.smallPicturesOnly).map(\.name)
        let halved = passes.filter(\.triedOnHalvedPictures).map(\.name)
        let megapixels = Double(fullSizeRetryLimit) / 1_000_000
        var text =
            "A picture over \(megapixels) megapixels gets the camera's first look, every"
            + " \(skimSpacing == 2 ? "other" : "\(skimSpacing)th") row and column,"
            + " and every one too when that look sees a code on too few of its lines to take it, or when it or"
            + " a later look reads an EAN/UPC code on fewer than \(crossCheckedBelowLines) lines."
            + " An image where the first look finds nothing is looked at again: first by our own GS1 DataBar "
            + "Expanded decoder, then by ZBar through each retry pass in turn, stopping at the first that finds "
            + "a code: \(sentence(passes.map(\.summary)))."
        if !small.isEmpty {
            text += " The \(sentence(small)) looks are tried on pictures up to \(side) × \(side) only."
        }
        text +=
            " A picture over \(megapixels) megapixels is halved first"
            + (halved.isEmpty ? " and gets no further ZBar look." : " and gets only the \(sentence(halved)) looks.")
        text +=
            " Then zxing-cpp looks at the whole picture for any wanted symbology it reads, taking a linear"
            + " code only when it reads it on \(secondEngineLineCount) scan lines"
            + " (\(shortCodeLineCount) for EAN-8 and UPC-E)."
        text +=
            " Last, the angled look, for linear codes turned away from the image axes: up to"
            + " \(angledRegionLimit) patches of parallel bars, found from the picture's gradients, are cut"
            + " out of the full-size picture with their bars upright, each pixel the mean of"
            + " \(angledAveraging) samples along the bars, and read by ZBar along the cut-out's rows;"
            + " a patch that reads nothing is read again from \(combinedBands) bands of"
            + " \(combinedLinesPerBand) scan lines each, averaged and sharpened, by ZBar and then by zxing-cpp;"
            + " a picture over \(Double(angledHalvedLookLimit) / 1_000_000) megapixels that the angled look"
            + " reads nothing in is looked at so again at half size. A picture of at most"
            + " \(Double(qrLookLimit) / 1_000_000) megapixels that still reads nothing is looked at by"
            + " zxing-cpp for a QR code once more: halved, inverted and sharpened."
        return text
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func sentence(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
