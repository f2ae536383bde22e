import CBuildVersion

/// This build's version, as `scanpick --version` prints it, stations report it in their heartbeats
/// and both processes export it (`scanpick_build_info`). A package built by scripts/package-deb
/// says the release, the commit's date and the commit (`0.1.0+20261205.36fdbf4`, the package's own
/// version); a build from a source checkout says so (`0.1.0+checkout`).
///
///     print("scanpick \(ScanPickVersion.current)")
public enum ScanPickVersion {
    /// The release this source tree is, written once: scripts/package-deb reads it from here.
    public static let release = "0.1.0"

    /// The package's version when scripts/package-deb built this binary, else nil.
    public static let package: String? = {
        let baked = String(cString: scanpick_package_version())
        // What package-deb writes: the release, `+`, the date and the commit (visible ASCII, short).
        guard baked.hasPrefix(release + "+"), baked.utf8.count <= 64,
            baked.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return baked
    }()

    /// The package's version, or `RELEASE+checkout` for a build from a source checkout.
    public static let current = package ?? release + "+checkout"

    /// `--version`'s line after the program's name.
    public static var description: String {
        package == nil ? "\(current) (built from a source checkout, not a package)" : current
    }
}
