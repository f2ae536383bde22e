/// How a station names itself to the server: its config's `station`, sent as the
/// `X-ScanPick-Station` header on every request and as a heartbeat's `station`. The server records
/// it with each picking event and idempotency key and logs it; a name that breaks the rule is 400.
///
///     try StationIdentity.check(configuration.station, field: "station")
///     request.setValue(name, forHTTPHeaderField: StationIdentity.header)
public enum StationIdentity {
    /// The request header that names the station sending it.
    public static let header = "X-ScanPick-Station"
    /// The most characters a station name has.
    public static let maxLength = 64
    /// The rule in words, for error messages.
    public static let rule = "must be 1–\(maxLength) visible ASCII characters (letters, digits, punctuation; no spaces)"

    /// Whether `name` is 1–64 visible ASCII characters (U+0021–U+007E): safe in a header, a log
    /// line, SQL and a metrics label, and the same bytes on every side.
    public static func isValid(_ name: String) -> Bool {
        (1...maxLength).contains(name.utf8.count) && name.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// Throws a text ``FieldError`` naming `field` unless `name` is a valid station name.
    public static func check(_ name: String, field: String) throws(FieldError) {
        guard isValid(name) else { throw FieldError(field: field, problem: rule) }
    }
}
