import Foundation

/// The file attributes `chattr` sets that forbid writing a file whatever its owner and mode:
/// immutable (`+i`) and append-only (`+a`). Even root cannot write such a file, so a message that
/// spoke of owners and modes would send the operator the wrong way.
///
///     if let flag = FileFlags.writeForbidding(path) { … "\(path) is \(flag)" … }
public enum FileFlags {
    /// `FS_IOC_GETFLAGS` (`_IOR('f', 1, long)`, a macro Swift cannot import).
    private static let getFlags: UInt = 0x8008_6601
    private static let immutable = 0x10  // FS_IMMUTABLE_FL
    private static let appendOnly = 0x20  // FS_APPEND_FL

    /// "immutable (chattr +i)" or "append-only (chattr +a)" when the file or folder at `path` has
    /// that attribute; nil when it has neither, or its attributes cannot be read (a file system
    /// without them, or a file this user cannot open). Read through ``HeldFile``: a database this
    /// process has open keeps its SQLite locks.
    public static func writeForbidding(_ path: String) -> String? {
        HeldFile.withDescriptor(path) { descriptor in
            var flags = 0  // the kernel writes an int; a long leaves room whatever it writes
            guard ioctl(descriptor, getFlags, &flags) == 0 else { return nil }
            if flags & immutable != 0 { return "immutable (chattr +i)" }
            if flags & appendOnly != 0 { return "append-only (chattr +a)" }
            return nil
        }
    }
}
