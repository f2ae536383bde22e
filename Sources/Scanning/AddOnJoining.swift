/// EAN-2 and EAN-5 add-ons appended to their main code, for ``ReaderOptions/joinsAddOns``.
///
/// ZBar reports the small add-on beside a book's or magazine's EAN/UPC as a symbol of its own. Joined,
/// each add-on belongs to the nearest main code not already given one, and its digits follow that
/// code's with no space (`9780735200449` + `51299` → `978073520044951299`), as the corpus and zxing's
/// `EanAddOnSymbol::Read` report them (zxing-cpp puts a space between).
enum AddOnJoining {
    /// `codes` with each add-on appended to its nearest main code and removed; every other code is
    /// kept in order. An add-on with no main code left to join is kept as it is.
    static func join(_ codes: [Barcode]) -> [Barcode] {
        let isAddOn = { (code: Barcode) in LoneAddOnGuard.addOns.contains(code.symbology) }
        guard codes.contains(where: isAddOn) else { return codes }
        var joined = codes.filter { !isAddOn($0) }
        var taken = Set<Int>()
        for addOn in codes where isAddOn(addOn) {
            let candidates = joined.indices.filter {
                LoneAddOnGuard.mainCodes.contains(joined[$0].symbology) && !taken.contains($0)
            }
            guard let nearest = candidates.min(by: { distance(joined[$0], addOn) < distance(joined[$1], addOn) })
            else {
                joined.append(addOn)
                continue
            }
            taken.insert(nearest)
            joined[nearest].payload += addOn.payload
            joined[nearest].points = Barcode.Point.convexHull(joined[nearest].points + addOn.points)
        }
        return joined
    }

    /// Squared distance between the centres of two codes' outlines.
    private static func distance(_ a: Barcode, _ b: Barcode) -> Int {
        let (ax, ay) = centre(a)
        let (bx, by) = centre(b)
        return (ax - bx) * (ax - bx) + (ay - by) * (ay - by)
    }

    private static func centre(_ code: Barcode) -> (x: Int, y: Int) {
        guard !code.points.isEmpty else { return (0, 0) }
        let count = code.points.count
        return (code.points.map(\.x).reduce(0, +) / count, code.points.map(\.y).reduce(0, +) / count)
    }
}
