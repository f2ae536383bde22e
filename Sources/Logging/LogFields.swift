/// The fields of one log line, in order: written as a dictionary literal at the call
/// (`["device": "\(path)", "tries": .number(3)]`), or built up with ``add(_:_:)``.
public struct LogFields: Sendable, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were given.
    public private(set) var pairs: [(key: String, value: LogValue)]

    public init(dictionaryLiteral elements: (String, LogValue)...) { pairs = elements.map { ($0.0, $0.1) } }

    /// Adds one field after the others.
    public mutating func add(_ key: String, _ value: LogValue) { pairs.append((key, value)) }

    /// Whether a field is called `key`.
    func names(_ key: String) -> Bool { pairs.contains { $0.key == key } }
}
