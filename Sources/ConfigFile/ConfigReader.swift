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

    /// The most bytes a configuration file may hold.
    public static let maxFileBytes = 1024 * 1024

    /// Parses the JSON object in the file at `file`.
    public init(contentsOf file: String) throws(ConfigError) {
        let data: Data
        do {
            data = Data(try NamedFile.readBytes(file, limit: Self.maxFileBytes))
        } catch {
            let problem = error.othersMayChange ? error.problem : "cannot be read: it \(error.problem)"
            throw ConfigError(file: file, key: nil, problem: problem)
        }
        try self.init(data: data, file: file)
    }

    /// Parses the JSON object in `data`.
    public init(data: Data, file: String) throws(ConfigError) {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ConfigError(file: file, key: nil, problem: Self.syntaxProblem(error, in: data))
        }
        guard let object = parsed as? [String: Any] else {
            throw ConfigError(file: file, key: nil, problem: "the top level must be a JSON object")
        }
        // Strict means a setting written twice is said, not settled by keeping one of the two.
        if let repeated = JSONSyntax.repeatedKey(in: [UInt8](data)) {
            throw ConfigError(
                file: file, key: repeated.path,
                problem: "is given twice (again at line \(repeated.line), column \(repeated.column)): keep one")
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
        guard let text = try string(key) else {
            // A misspelling of it is the likelier mistake than leaving it out: name that key.
            if let misspelt = object.keys.sorted().first(where: { !read.contains($0) && Self.isNear($0, key) }) {
                throw error(misspelt, "is not a known setting; did you mean \"\(key)\"? (\"\(key)\" is required)")
            }
            throw error(key, "is required")
        }
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

    /// The list of objects at `key`, each as its own reader (`scanners[0]`; finish each), or nil
    /// when absent.
    public mutating func objects(_ key: String) throws(ConfigError) -> [ConfigReader]? {
        guard let value = take(key) else { return nil }
        guard let list = value as? [Any] else { throw error(key, "must be a list of JSON objects") }
        var readers: [ConfigReader] = []
        for (index, item) in list.enumerated() {
            guard let nested = item as? [String: Any] else { throw error("\(key)[\(index)]", "must be a JSON object") }
            readers.append(ConfigReader(object: nested, file: file, path: keyPath("\(key)[\(index)]")))
        }
        return readers
    }

    /// Throws for the first key that was never read, suggesting the known key it is closest to.
    public func finish() throws(ConfigError) {
        guard let unknown = object.keys.sorted().first(where: { !read.contains($0) }) else { return }
        if let known = read.sorted().first(where: { Self.isNear(unknown, $0) }) {
            throw error(unknown, "is not a known setting; did you mean \"\(known)\"?")
        }
        throw error(unknown, "is not a known setting (check its spelling; see the README's configuration reference)")
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

    /// Whether `typed` looks like a misspelling of `known`: a letter or two wrong, missing, added or
    /// swapped (at most one for short keys), ignoring case.
    static func isNear(_ typed: String, _ known: String) -> Bool {
        let a = Array(typed.lowercased().unicodeScalars)
        let b = Array(known.lowercased().unicodeScalars)
        guard a != b || typed != known else { return false }
        let allowed = min(a.count, b.count) <= 4 ? 1 : 2
        guard abs(a.count - b.count) <= allowed, a.count < 64, b.count < 64 else { return false }
        // Optimal string alignment distance: edits are insertions, deletions, substitutions and
        // swaps of two neighbours.
        var distance = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { distance[i][0] = i }
        for j in 0...b.count { distance[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                distance[i][j] = min(distance[i - 1][j] + 1, distance[i][j - 1] + 1, distance[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance[i][j] = min(distance[i][j], distance[i - 2][j - 2] + 1)
                }
            }
        }
        return distance[a.count][b.count] <= allowed
    }

    /// What is wrong with JSON that does not parse, with the line and column it went wrong at.
    static func syntaxProblem(_ error: any Error, in data: Data) -> String {
        // Foundation's own message says little and points roughly; find the first bad byte ourselves.
        let bytes = [UInt8](data)
        if let problem = JSONSyntax.problem(in: bytes) { return problem }
        // Valid JSON that Foundation still refuses: a lone value (`null`, `3`), or a number no Double
        // holds (its message names the number).
        let first = bytes.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.first
        if first != UInt8(ascii: "{") { return "the top level must be a JSON object" }
        return "not valid JSON (\((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"))"
    }

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
