/// This build's version, as stations report it in their heartbeats.
public enum ScanPickVersion {
    public static let current = "0.1.0"
}
