/// This build's version, as stations report it in their heartbeats (scripts/package-deb reads it
/// from here for the package's version: written once).
public enum ScanPickVersion {
    public static let current = "0.1.0"
}
