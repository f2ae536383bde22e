import ConfigFile
import Foundation
import HTTPServing
import Server
import Station

/// What `config check` finds, beyond reading the file, that would stop `scanpick serve` or
/// `scanpick station` at start-up: a database its user cannot write, or outside the folders the
/// packaged unit may write; a listen address in use; an open batch of an organisation the file no
/// longer has. Each problem names the file or key and the fix.
///
///     let (problems, warnings) = StartupProblems.server(configuration)
enum StartupProblems {
    static func server(_ configuration: ServerConfiguration) -> (problems: [String], warnings: [String]) {
        var found = listening([("listen", configuration.listen), ("metrics.listen", configuration.metrics.listen)])
        if case .sqlite(let file) = configuration.database {
            found.problems += database(file, unit: "scanpick-serve")
        }
        return found
    }

    static func station(_ configuration: StationConfiguration, path: String) -> (problems: [String], warnings: [String])
    {
        var (problems, warnings) = listening([
            ("page.listen", configuration.page.listen), ("metrics.listen", configuration.metrics.listen),
        ])
        problems += database(configuration.databasePath, unit: "scanpick-station")
        do {
            if let open = try PickListCache.openBatch(inFile: configuration.databasePath),
                configuration.organisations[open.org] == nil
            {
                problems.append(
                    "the queue database \(configuration.databasePath) has batch \(open.batchId) of organisation \(open.org) open, but \(path) has no organisations.\(open.org): put it back (with its token) so the batch and its unsent actions can reach the server, and finish or close the batch before removing it"
                )
            }
        } catch {
            problems.append(
                "cannot read the open batch from the queue database \(configuration.databasePath): \(error)")
        }
        return (problems, warnings)
    }

    /// Each address that cannot be listened on. One something already listens on fails the check
    /// under systemd (`ExecStartPre=`, where this service has stopped); run by hand it is a warning,
    /// since the service itself holds it until a restart stops it.
    static func listening(_ addresses: [(key: String, address: ListenAddress?)]) -> (
        problems: [String], warnings: [String]
    ) {
        var found: (problems: [String], warnings: [String]) = ([], [])
        let underSystemd = ProcessInfo.processInfo.environment["INVOCATION_ID"] != nil
        for (key, address) in addresses {
            guard let (message, inUse) = address?.bindProblem(key: key) else { continue }
            if inUse && !underSystemd {
                found.warnings.append(message + " (if that is this service, running: a restart stops it first)")
            } else {
                found.problems.append(message)
            }
        }
        return found
    }

    /// A SQLite database's problems: this user cannot write it or create it (run as the service's
    /// user, as `config check` does again when root runs it), or the packaged unit's
    /// `ReadWritePaths=` leave its folder read-only to the service.
    static func database(_ file: String, unit: String) -> [String] {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path
        if let writable = ServiceUnit.installed(unit)?.readWritePaths,
            !writable.contains(where: { folder == $0 || folder.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") })
        {
            // Said alone: under the unit (ExecStartPre=), the folder is also read-only to the check.
            return [
                "the database \(file) is outside \(writable.joined(separator: " ")), the only folders the packaged \(unit) service may write (ReadWritePaths=): move it there (e.g. \(DatabaseFolder.packagedDataFolder)/\((file as NSString).lastPathComponent)), or add its folder with systemctl edit \(unit) ([Service] ReadWritePaths=\(folder))"
            ]
        }
        var problems: [String] = []
        if geteuid() != 0 {
            if let problem = DatabaseFolder.accessProblem(forDatabase: file) {
                problems.append(problem)
            } else if let ancestor = nearestExisting(folder), ancestor != folder, access(ancestor, W_OK | X_OK) != 0 {
                problems.append(
                    "cannot create the database's folder \(folder): \(ancestor) is \(NamedFile.ownership(ancestor)) and this process runs as \(NamedFile.currentUser()) (create it for that user: install -d -o \(NamedFile.currentUser()) \(folder))"
                )
            }
        }
        return problems
    }

    /// `path` itself or the nearest folder above it that exists.
    static func nearestExisting(_ path: String) -> String? {
        var current = path
        while !FileManager.default.fileExists(atPath: current) {
            let parent = (current as NSString).deletingLastPathComponent
            guard parent != current, !parent.isEmpty else { return nil }
            current = parent
        }
        return current
    }
}
