import Foundation

/// The `database` of `config/server.json` or `--database`: a SQLite file path, or PostgreSQL given as
/// a `postgres://` / `postgresql://` URL or a libpq `key=value` connection string
/// (`host=/run/postgresql dbname=scanpick`).
public enum ServerDatabase: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(connectionString: String)

    /// Reads `text`; a relative SQLite path is resolved against `base` (the config file's folder).
    public init(_ text: String, relativeTo base: URL) {
        if Self.isPostgres(text) {
            self = .postgres(connectionString: text)
        } else if text.hasPrefix("/") {
            self = .sqlite(path: text)
        } else {
            self = .sqlite(path: base.appendingPathComponent(text).standardizedFileURL.path)
        }
    }

    /// Reads `--database` from the command line: a relative SQLite path is relative to the
    /// current folder.
    public init(commandLine text: String) {
        self.init(text, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    }

    static func isPostgres(_ text: String) -> Bool {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") { return true }
        // A libpq key=value string starts with a keyword and '=' (a file name rarely does).
        let keyword = text.prefix { $0.isLetter || $0 == "_" }
        return !keyword.isEmpty && text.dropFirst(keyword.count).drop { $0 == " " }.first == "="
    }

    /// For logs: the path, or the connection string with any password masked.
    public var description: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(let connectionString):
            var masked = connectionString.replacing(/password\s*=\s*('[^']*'|\S+)/, with: "password=***")
            masked = masked.replacing(/(postgres(?:ql)?:\/\/[^:@\/]*):[^@\/]*@/) { "\($0.1):***@" }
            return masked
        }
    }
}
