import GS1
import Timestamps

/// The bounds every field of the HTTP contract keeps: how long text may be and which characters it
/// may hold, the range of each quantity, and how long each list may be. The server checks what it
/// receives against them and the station what its page sends, before SQL or a sum sees a value.
///
///     try FieldRules.text(request.pickTaskId, field: "pickTaskId")
///     try FieldRules.quantity(request.qty, field: "qty", in: FieldRules.pickQuantity)
public enum FieldRules {
    /// Units one pick may add.
    public static let pickQuantity = 1...100_000
    /// A count of units: a set-qty's `from` and `to`, an order line's `qty`.
    public static let unitCount = 0...100_000
    /// Units of one pick task in a shipment.
    public static let shipmentQuantity = 1...100_000
    /// Characters of an id, a worker id, a timestamp or another short text.
    public static let maxTextLength = 200
    /// Characters of a barcode (a GS1 DataBar Expanded holds up to 74; QR codes on labels more).
    public static let maxBarcodeLength = 512
    /// Order ids in one batch request's filter.
    public static let maxOrderIds = 1000
    /// Orders in one `POST /api/orders`, and lines over all of them.
    public static let maxOrdersPerRequest = 1000
    public static let maxOrderLinesPerRequest = 5000
    /// Units (pick tasks) in one shipment.
    public static let maxShipmentUnits = 1000

    /// Checks that `value` is 1 to `maxLength` characters with no control character: C0 and DEL
    /// (U+0000–U+001F, U+007F), which would truncate or split it in C, SQL and log lines, nor C1
    /// (U+0080–U+009F), line and paragraph separators (U+2028, U+2029) or bidirectional overrides
    /// (U+202A–U+202E, U+2066–U+2069), which make a value read differently from what it is.
    public static func text(_ value: String, field: String, maxLength: Int = maxTextLength) throws(FieldError) {
        try check(value, field: field, maxLength: maxLength, allowing: nil)
    }

    /// Checks that `value` is a time with its zone, RFC 3339 (`2026-12-01T14:36:53Z`,
    /// `…:53.120+01:00`): a time without a zone is read differently on every machine, and one the
    /// server cannot read would escape the idempotency horizon's check.
    public static func time(_ value: String, field: String) throws(FieldError) {
        try text(value, field: field)
        guard Timestamp.date(value) == nil else { return }
        throw FieldError(
            field: field, problem: "must be a time with its zone, RFC 3339 (e.g. 2026-12-01T14:36:53Z)")
    }

    /// Checks a ship-by date as ``text(_:field:maxLength:)`` checks text, and that it is a real date,
    /// `YYYY-MM-DD`, optionally followed by a time (`2026-12-01T18:00:00Z`): batches compare these as
    /// text, which orders ISO 8601 correctly and nothing else.
    public static func shipDate(_ value: String, field: String) throws(FieldError) {
        try text(value, field: field)
        let isDate = GS1Date(iso: String(value.prefix(10))) != nil
        guard isDate, value.count == 10 || value.dropFirst(10).first == "T" else {
            throw FieldError(
                field: field,
                problem: "must be a date, YYYY-MM-DD (a time may follow a T), not '\(value.prefix(40))'")
        }
    }

    /// The longest organisation name.
    public static let maxOrganisationLength = 64

    /// Checks an organisation's name, which configs, tokens, log lines and metrics labels carry:
    /// as ``text(_:field:maxLength:)`` checks text, at most ``maxOrganisationLength`` characters.
    /// Returns what is wrong with it, or nil.
    public static func organisationProblem(_ name: String) -> String? {
        do {
            try text(name, field: "organisation", maxLength: maxOrganisationLength)
            return nil
        } catch {
            return "the organisation name \(String(reflecting: String(name.prefix(80)))) \(error.problem)"
        }
    }

    /// The group separator (GS, U+001D) that ends a variable-length element of a GS1 code, as
    /// handheld scanners and readers deliver it.
    public static let groupSeparator: Unicode.Scalar = "\u{1D}"

    /// Checks a barcode as ``text(_:field:maxLength:)`` checks text, up to ``maxBarcodeLength``
    /// characters, except that it may hold the GS1 group separator: a GS1 code keeps it intact.
    public static func barcode(_ value: String, field: String) throws(FieldError) {
        try check(value, field: field, maxLength: maxBarcodeLength, allowing: groupSeparator)
    }

    private static func check(_ value: String, field: String, maxLength: Int, allowing allowed: Unicode.Scalar?)
        throws(FieldError)
    {
        guard !value.isEmpty else { throw FieldError(field: field, problem: "must not be empty") }
        guard value.utf8.count <= maxLength * 4, value.count <= maxLength else {
            throw FieldError(field: field, problem: "must be at most \(maxLength) characters")
        }
        guard !value.unicodeScalars.contains(where: { $0 != allowed && isRefused($0) }) else {
            throw FieldError(
                field: field,
                problem: allowed == nil
                    ? "must not contain control characters"
                    : "must not contain control characters (other than the GS1 group separator)")
        }
    }

    static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Like ``text(_:field:maxLength:)`` for a value that may be absent.
    public static func optionalText(_ value: String?, field: String, maxLength: Int = maxTextLength)
        throws(FieldError)
    {
        if let value { try text(value, field: field, maxLength: maxLength) }
    }

    /// Checks that a quantity lies in `range`.
    public static func quantity(_ value: Int, field: String, in range: ClosedRange<Int>) throws(FieldError) {
        guard range.contains(value) else {
            throw FieldError(
                field: field, problem: "must be from \(range.lowerBound) to \(range.upperBound), not \(value)",
                kind: .quantity)
        }
    }

    /// Checks that a list has at most `limit` items.
    public static func count(_ count: Int, field: String, atMost limit: Int) throws(FieldError) {
        guard count <= limit else {
            throw FieldError(field: field, problem: "may hold at most \(limit) items, not \(count)", kind: .listLength)
        }
    }
}

/// A field that breaks ``FieldRules``: which one, and how.
public struct FieldError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of rule was broken (each is answered with its own error code).
    public enum Kind: Sendable {
        /// Text that is empty, too long, or holds control characters.
        case text
        /// A quantity out of its range.
        case quantity
        /// A list with too many items.
        case listLength
    }

    /// The field as the request names it, e.g. `orders[3].lines[0].qty`.
    public var field: String
    public var problem: String
    public var kind: Kind

    public init(field: String, problem: String, kind: Kind = .text) {
        self.field = field
        self.problem = problem
        self.kind = kind
    }

    public var description: String { "\(field) \(problem)" }
}
