/// The misread guard for EAN-2 and EAN-5 add-ons: one is reported only beside a main code.
///
/// ZBar reports the small add-on beside a book's or magazine's EAN/UPC as a symbol of its own. With no
/// EAN/UPC in the same image it is five digits of a price or an issue number, never a product, and
/// bar-like texture misread as one is the commonest false read on the real-world corpus (5 of its
/// misreads were lone add-ons). Such a lone add-on is dropped.
enum LoneAddOnGuard {
    static let mainCodes: Set<Symbology> = [.ean13, .upca, .upce, .ean8, .isbn10, .isbn13]
    static let addOns: Set<Symbology> = [.ean2, .ean5]

    /// `codes` without their add-ons when no main code is among them.
    static func apply(_ codes: [Barcode]) -> [Barcode] {
        guard !codes.contains(where: { mainCodes.contains($0.symbology) }) else { return codes }
        return codes.filter { !addOns.contains($0.symbology) }
    }
}
