import Foundation
import Imaging

/// One image to decode: a path as the user gave it or as a directory walk found it, or a path that
/// is already known to be unusable (it still gets its line in the output, in order).
public struct DecodeInput: Sendable, Equatable {
    public var path: String
    /// Set when the path cannot be decoded at all (missing, a link loop, not an image).
    public var problem: ImageLoadError?

    public init(path: String, problem: ImageLoadError? = nil) {
        self.path = path
        self.problem = problem
    }

    /// Expands command-line paths into inputs, in order. A named file is always an input (if it is not
    /// an image, decoding says so); a directory is walked recursively in sorted order and contributes
    /// only files whose extension is an image's (``ImageFormat/fileExtensions``). Links are followed;
    /// a link loop or a directory cycle becomes an input with a problem instead of an endless walk,
    /// and so does a link named like an image whose file does not exist.
    public static func collect(_ paths: [String]) -> [DecodeInput] {
        var inputs: [DecodeInput] = []
        for path in paths {
            var info = stat()
            if stat(path, &info) != 0 {
                inputs.append(DecodeInput(path: path, problem: ImageLoadError(errno: errno)))
            } else if FileStatus.isDirectory(info) {
                walk(directory: path, ancestors: [FileStatus.identity(info)], into: &inputs)
            } else {
                inputs.append(DecodeInput(path: path))
            }
        }
        return inputs
    }

    private static func walk(directory: String, ancestors: Set<FileStatus.Identity>, into inputs: inout [DecodeInput]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            inputs.append(DecodeInput(path: directory, problem: .permissionDenied))
            return
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            let isImageName = ImageFormat.fileExtensions.contains((name as NSString).pathExtension.lowercased())
            if stat(path, &info) != 0 {
                // A loop is reported; so is a dangling link named like an image (it was meant to be
                // decoded); any other dangling link is skipped like any non-image.
                if errno == ELOOP {
                    inputs.append(DecodeInput(path: path, problem: .symlinkLoop))
                } else if isImageName {
                    let problem = errno == ENOENT ? ImageLoadError.danglingLink : ImageLoadError(errno: errno)
                    inputs.append(DecodeInput(path: path, problem: problem))
                }
                continue
            }
            if FileStatus.isDirectory(info) {
                let identity = FileStatus.identity(info)
                if ancestors.contains(identity) {
                    inputs.append(DecodeInput(path: path, problem: .symlinkLoop))
                } else {
                    walk(directory: path, ancestors: ancestors.union([identity]), into: &inputs)
                }
            } else if isImageName {
                inputs.append(DecodeInput(path: path))
            }
        }
    }
}

/// `stat` helpers shared by the input walk.
enum FileStatus {
    struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    static func identity(_ info: stat) -> Identity {
        Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func isDirectory(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFDIR
    }
}
