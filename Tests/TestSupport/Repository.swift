import Foundation

/// Paths in this repository, for tests that use committed files (`SampleImages/`).
public enum Repository {
    /// The repository root (the folder holding `Package.swift`).
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()

    /// `SampleImages/` and its manifest.
    public static let sampleImages = root + "/SampleImages"
    public static let sampleManifest = sampleImages + "/manifest.csv"

    /// A committed sample image, e.g. `sample("clean/ean13.png")`.
    public static func sample(_ relativePath: String) -> String { sampleImages + "/" + relativePath }

    /// The bytes of a committed sample image.
    public static func sampleBytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: sample(relativePath))))
    }
}
