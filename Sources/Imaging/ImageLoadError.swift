import Foundation

/// Why an image file could not become a ``GreyImage``. Each case carries what a person needs to fix
/// it; `description` is the sentence shown next to the file name.
public enum ImageLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound
    case permissionDenied
    case isDirectory
    /// A FIFO, device or socket: never opened for reading (a FIFO would wait for a writer forever).
    case notARegularFile
    case symlinkLoop
    /// A symbolic link to a file that does not exist (found in a folder, where it looks like an image).
    case danglingLink
    case unreadable(reason: String)
    case empty
    case fileTooLarge(bytes: Int, limit: Int)
    case unknownFormat
    case tooManyPixels(width: Int, height: Int, limit: Int)
    case malformed(format: ImageFormat, reason: String)
    case truncated(format: ImageFormat)

    public var description: String {
        switch self {
        case .notFound: "no such file or directory"
        case .permissionDenied: "permission denied (check the file's owner and mode)"
        case .isDirectory: "is a directory"
        case .notARegularFile: "not a regular file (a FIFO, device or socket): only image files are read"
        case .symlinkLoop: "symbolic link loop (a link that leads back to itself, or to a folder it is in)"
        case .danglingLink: "a symbolic link to a file that does not exist"
        case .unreadable(let reason): "cannot read: \(reason)"
        case .empty: "empty file (0 bytes)"
        case .fileTooLarge(let bytes, let limit):
            "file is \(bytes) bytes, over the \(limit)-byte limit for an image"
        case .unknownFormat: "not a PNG, JPEG, PGM or PPM image (unrecognised file signature)"
        case .tooManyPixels(let width, let height, let limit):
            "image is \(width)×\(height) pixels, over the limit of \(limit) pixels"
        case .malformed(let format, let reason): "corrupt \(format) image: \(reason)"
        case .truncated(let format): "truncated \(format) image (the file ends before the image does)"
        }
    }

    /// The error for a failed system call's `errno`.
    public init(errno code: Int32) {
        switch code {
        case ENOENT, ENOTDIR: self = .notFound
        case EACCES, EPERM: self = .permissionDenied
        case EISDIR: self = .isDirectory
        case ELOOP: self = .symlinkLoop
        default: self = .unreadable(reason: String(cString: strerror(code)))
        }
    }
}
