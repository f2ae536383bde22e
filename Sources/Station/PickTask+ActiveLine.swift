import TerminalText
import Wire

extension PickTask {
    /// The active task as `batch open`, `select` and `station` print it, safe for a terminal:
    /// "active: A1  COFFEE ARABICA 1KG  036000291452  1/3, 1 short  tote 2  (task task-…)" (the
    /// product's name, or its SKU when the order line has none).
    public var activeLine: String {
        let short = qtyShort > 0 ? ", \(qtyShort) short" : ""
        let tote = self.tote.map { "  tote \($0)" } ?? ""
        return TerminalText.printable(
            "active: \(location)  \(displayName)  \(barcode)  \(qtyPicked)/\(qtyRequired)\(short)\(tote)  (task \(id))")
    }
}
