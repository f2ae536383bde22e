import Foundation

/// The page's own files: everything its `Page` folder holds (index.html, the style sheet, the
/// scripts index.html loads), served as they are, index.html at `/`. Adding a script to the folder
/// and to index.html is all it takes to serve it.
extension StationPage {
    /// The Content-Type of each kind of file the folder may hold; other files are not served.
    static let contentTypes = ["html": "text/html; charset=utf-8", "css": "text/css", "js": "text/javascript"]

    /// The path a file of the folder is served at.
    static func servedPath(_ name: String) -> String { name == "index.html" ? "/" : "/" + name }

    /// The names of the folder's files that are served, read once from the bundle.
    static let fileNames: [String] = {
        guard let folder = Bundle.module.url(forResource: "Page", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { contentTypes[($0 as NSString).pathExtension] != nil }.sorted()
    }()

    /// Every file of the folder by the path it is served at, with its Content-Type; throws when
    /// the folder or its index.html cannot be read (an installation missing its resources).
    static func readFiles() throws -> [String: (type: String, bytes: [UInt8])] {
        guard let folder = Bundle.module.url(forResource: "Page", withExtension: nil), fileNames.contains("index.html")
        else { throw StationPageError.missingFile("Page/index.html") }
        var files: [String: (type: String, bytes: [UInt8])] = [:]
        for name in fileNames {
            guard let type = contentTypes[(name as NSString).pathExtension],
                let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else { throw StationPageError.missingFile(name) }
            files[servedPath(name)] = (type, [UInt8](data))
        }
        return files
    }
}
