import Foundation

/// Reads one JSON object of a configuration file strictly: every key must be read by the caller,
/// so a misspelt or unknown key is an error naming it, never silently ignored, and a value of the
/// wrong type names its key path too.
///
///     var reader = try ConfigReader(contentsOf: "config/server.json")
///     let listen = try reader.string("listen", default: "127.0.0.1:8080")
///     try reader.finish()  // throws for keys nobody asked for
public struct ConfigReader {
    /// The file (for messages) and the key path of this object (`organisations.acme`).
    public let file: String
    public let path: String
    private let object: [String: Any]
    private var read: Set<String> = []

    /// Parses the JSON object in the file at `file`.
    public init(contentsOf file: String) throws(ConfigError) {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigError(file: file, key: nil, problem: "cannot read the file (does it exist?)")
        }
        try self.init(data: data, file: file)
    }

    /// Parses the JSON object in `data`.
    public init(data: Data, file: String) throws(ConfigError) {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ConfigError(
                file: file, key: nil, problem: "not valid JSON (\((error as NSError).localizedDescription))")
        }
        guard let object = parsed as? [String: Any] else {
            throw ConfigError(file: file, key: nil, problem: "the top level must be a JSON object")
        }
        self.init(object: object, file: file, path: "")
    }

    private init(object: [String: Any], file: String, path: String) {
        self.object = object
        self.file = file
        self.path = path
    }

    /// The keys of this object, sorted (for maps such as `organisations`).
    public var keys: [String] { object.keys.sorted() }

    public func contains(_ key: String) -> Bool { object[key] != nil }

    public mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = take(key) else { return nil }
        guard let text = value as? String else { throw error(key, "must be a string") }
        return text
    }

    public mutating func string(_ key: String, default fallback: String) throws(ConfigError) -> String {
        try string(key) ?? fallback
    }

    public mutating func requiredString(_ key: String) throws(ConfigError) -> String {
        guard let text = try string(key) else { throw error(key, "is required") }
        return text
    }

    public mutating func bool(_ key: String, default fallback: Bool) throws(ConfigError) -> Bool {
        guard let value = take(key) else { return fallback }
        guard let number = value as? NSNumber, Self.isBoolean(number) else {
            throw error(key, "must be true or false")
        }
        return number.boolValue
    }

    /// A number within `range`.
    public mutating func number(_ key: String, default fallback: Double, in range: ClosedRange<Double>)
        throws(ConfigError) -> Double
    {
        guard let value = take(key) else { return fallback }
        guard let number = value as? NSNumber, !Self.isBoolean(number) else {
            throw error(key, "must be a number")
        }
        guard range.contains(number.doubleValue) else {
            throw error(key, "must be from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
        return number.doubleValue
    }

    /// A whole number within `range`.
    public mutating func integer(_ key: String, default fallback: Int, in range: ClosedRange<Int>) throws(ConfigError)
        -> Int
    {
        let value = try number(key, default: Double(fallback), in: Double(range.lowerBound)...Double(range.upperBound))
        guard value == value.rounded() else { throw error(key, "must be a whole number") }
        return Int(value)
    }

    public mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = take(key) else { return nil }
        guard let list = value as? [Any], list.allSatisfy({ $0 is String }) else {
            throw error(key, "must be a list of strings")
        }
        return list.compactMap { $0 as? String }
    }

    /// The nested object at `key` as its own reader (finish it too), or nil when absent.
    public mutating func object(_ key: String) throws(ConfigError) -> ConfigReader? {
        guard let value = take(key) else { return nil }
        guard let nested = value as? [String: Any] else { throw error(key, "must be a JSON object") }
        return ConfigReader(object: nested, file: file, path: keyPath(key))
    }

    /// Throws for the first key that was never read.
    public func finish() throws(ConfigError) {
        if let unknown = object.keys.sorted().first(where: { !read.contains($0) }) {
            throw error(
                unknown, "is not a known setting (check its spelling; see the README's configuration reference)")
        }
    }

    /// An error about `key` of this object.
    public func error(_ key: String, _ problem: String) -> ConfigError {
        ConfigError(file: file, key: keyPath(key), problem: problem)
    }

    private mutating func take(_ key: String) -> Any? {
        read.insert(key)
        guard let value = object[key], !(value is NSNull) else { return nil }
        return value
    }

    private func keyPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// JSON `true`/`false` arrive as NSNumbers whose type is `char`; integers never do.
    private static func isBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A configuration problem: the file, the key path (`queue.backoffCapSeconds`) and what is wrong.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var key: String?
    public var problem: String

    public init(file: String, key: String?, problem: String) {
        self.file = file
        self.key = key
        self.problem = problem
    }

    public var description: String {
        key.map { "\(file): \"\($0)\" \(problem)" } ?? "\(file): \(problem)"
    }
}
