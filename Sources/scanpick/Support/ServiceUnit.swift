import Foundation

/// What the package's systemd unit allows its service, read from the unit file and its drop-ins as
/// systemd would combine them, for `config check`: only on an installed scanpick (in a checkout,
/// nothing runs under the unit).
///
///     ServiceUnit.installed("scanpick-serve")?.readWritePaths  // ["/var/lib/scanpick"]
struct ServiceUnit {
    /// The folders the service may write (`ReadWritePaths=`); with `ProtectSystem=strict`, the only ones.
    var readWritePaths: [String]

    /// The unit `name` (`scanpick-serve`) of this installed scanpick, or nil in a checkout or when
    /// the unit file is missing. Read under the installation's root (`/`, or a staged package's).
    static func installed(_ name: String) -> ServiceUnit? {
        guard let root = ConfigLocation.installRoot else { return nil }
        let unit = root + "/lib/systemd/system/\(name).service"
        let override = root + "/etc/systemd/system/\(name).service"
        let main = FileManager.default.fileExists(atPath: override) ? override : unit
        guard let text = try? String(contentsOfFile: main, encoding: .utf8) else { return nil }
        let dropInFolder = root + "/etc/systemd/system/\(name).service.d"
        let dropIns = ((try? FileManager.default.contentsOfDirectory(atPath: dropInFolder)) ?? [])
            .filter { $0.hasSuffix(".conf") }.sorted()
            .compactMap { try? String(contentsOfFile: dropInFolder + "/" + $0, encoding: .utf8) }
        var paths: [String] = []
        for file in [text] + dropIns {
            for line in file.split(separator: "\n") where line.hasPrefix("ReadWritePaths=") {
                let value = line.dropFirst("ReadWritePaths=".count)
                if value.trimmingCharacters(in: .whitespaces).isEmpty {
                    paths = []  // an empty assignment resets the list, as systemd reads it
                    continue
                }
                paths += value.split(separator: " ").map {
                    URL(fileURLWithPath: String($0.drop { "-+".contains($0) })).standardizedFileURL.path
                }
            }
        }
        return ServiceUnit(readWritePaths: paths)
    }
}
