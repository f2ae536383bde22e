import Foundation

/// Where the commands look for their configuration when `--config` is not given: installed (this
/// binary in a `…/usr/lib/scanpick/` folder, as the package puts it), `/etc/scanpick`; run from
/// a source checkout, `config/` as the repository has it. `--help` says which is in force.
///
///     var config = Option<String>("config", …, default: ConfigLocation.server, shown: ConfigLocation.shown(ConfigLocation.server))
enum ConfigLocation {
    /// The package's configuration folder.
    static let packagedFolder = "/etc/scanpick"
    /// A checkout's, relative to the folder the command runs in.
    static let checkoutFolder = "config"

    /// Whether this binary is the package's (`/usr/lib/scanpick/scanpick`, or the same layout
    /// staged for a package), not one built in a checkout (`.build/…/scanpick`).
    static var installed: Bool { installRoot != nil }

    /// The root this binary is installed under: "" for `/usr/lib/scanpick/scanpick`, the staging
    /// folder for one staged for a package; nil for a checkout's build.
    static let installRoot: String? = {
        let layout = "/usr/lib/scanpick/scanpick"
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            executable.hasSuffix(layout)
        else { return nil }
        return String(executable.dropLast(layout.count))
    }()

    /// The folder in force.
    static var folder: String { installed ? packagedFolder : checkoutFolder }

    /// The default server and station configuration files.
    static var server: String { folder + "/server.json" }
    static var station: String { folder + "/station.json" }

    /// How `--help` shows a default: the file, and why it is that one.
    static func shown(_ file: String) -> String {
        installed
            ? "\(file) (installed)"
            : "\(file) (a checkout build; installed, \(packagedFolder)/\((file as NSString).lastPathComponent))"
    }
}
