import ArgumentParsing
import ConfigFile
import Foundation
import SQLiteStorage
import Server
import Station

/// The SQLite file a configuration names, server's or station's, for `backup` and `restore`; and
/// the processes that have it open (a running service), which `restore` must not pull it from under.
///
///     let file = try DatabaseFile(config: "/etc/scanpick/server.json", kind: nil)
struct DatabaseFile {
    var path: String
    /// The unit that uses it (`scanpick-serve` or `scanpick-station`), for messages.
    var unit: String

    /// The `--config FILE` and `--kind` options that name it (`var database = DatabaseFile.Options()`).
    struct Options: CommandArguments {
        var config = Option<String>(
            "config", short: "c", valueName: "FILE", help: "The server's or the station's configuration.",
            default: ConfigLocation.server, shown: ConfigLocation.shown(ConfigLocation.server), parse: { $0 })
        var kind = Option<ConfigCommand.Kind?>(
            "kind", valueName: "server|station",
            help: "Which program the file is for (default: as config check guesses).",
            parse: { text throws(UsageError) in
                guard let kind = ConfigCommand.Kind(rawValue: text) else { throw UsageError(": use server or station") }
                return kind
            })
    }

    init(config: String, kind: ConfigCommand.Kind?) throws {
        switch try kind ?? ConfigCommand.Check.guessKind(config) {
        case .server:
            guard case .sqlite(let file) = try ServerFile.load(config, database: nil).database else {
                throw StationCommandError(
                    "\(config) names a PostgreSQL database: back it up with pg_dump and restore it with pg_restore (see the README)"
                )
            }
            (path, unit) = (file, "scanpick-serve")
        case .station:
            (path, unit) = (try StationConfiguration.load(path: config).databasePath, "scanpick-station")
        }
    }

    /// The ids and names of the processes that have the database (or its -wal) open, from `/proc`
    /// (as root: every process; otherwise this user's, which a service run as this user is).
    func holders() -> [String] {
        let targets = Set([path, path + "-wal"].map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        let ours = String(getpid())
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.filter { $0 != ours && $0.allSatisfy(\.isNumber) }.sorted().compactMap { pid in
            let folder = "/proc/\(pid)/fd"
            let open = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)).map(targets.contains)
                    ?? false
            }
            guard open else { return nil }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(pid) (\(name ?? "?"))"
        }
    }

    /// Throws unless `path` is a sound SQLite database with ScanPick's migrations table: what
    /// `restore` puts back, and what `backup` just made.
    static func checkSound(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StationCommandError("\(path) does not exist") }
        let db = try Database(readingOnly: path)
        let findings = try db.rows("PRAGMA quick_check(5)").compactMap { try $0.optionalString("quick_check") }
        guard findings == ["ok"] else {
            throw StationCommandError("\(path) is damaged (\(findings.joined(separator: "; "))): use another backup")
        }
        guard try db.row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") != nil
        else {
            throw StationCommandError(
                "\(path) is not a ScanPick database (it has no schema_migrations): use another backup")
        }
    }

    /// Moves the database and its -wal and -shm aside to `PATH.SUFFIX…`; returns where the database
    /// went (nil when there was none) and its owner, which the restored file takes.
    func moveAside(suffix: String) throws -> (path: String?, owner: (uid_t, gid_t)?) {
        var info = stat()
        guard stat(path, &info) == 0 else { return (nil, nil) }
        let aside = path + "." + suffix
        for ending in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + ending) {
            guard rename(path + ending, aside + ending) == 0 else {
                throw StationCommandError("cannot move \(path + ending) aside: \(String(cString: strerror(errno)))")
            }
        }
        return (aside, (info.st_uid, info.st_gid))
    }

    /// Copies `backup` into place (through a temporary file renamed over it), owned by `owner`.
    func copyIn(_ backup: String, owner: (uid_t, gid_t)?) throws {
        let incoming = path + ".restoring"
        unlink(incoming)
        try FileManager.default.copyItem(atPath: backup, toPath: incoming)
        chmod(incoming, 0o600)
        let descriptor = open(incoming, O_RDONLY | O_CLOEXEC)
        defer { if descriptor >= 0 { close(descriptor) } }
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            throw StationCommandError("cannot write \(incoming) durably: \(String(cString: strerror(errno)))")
        }
        if let (uid, gid) = owner, geteuid() == 0, chown(incoming, uid, gid) != 0 {
            throw StationCommandError("cannot give \(incoming) its owner back: \(String(cString: strerror(errno)))")
        }
        guard rename(incoming, path) == 0 else {
            throw StationCommandError("cannot put \(backup) in place of \(path): \(String(cString: strerror(errno)))")
        }
    }
}
