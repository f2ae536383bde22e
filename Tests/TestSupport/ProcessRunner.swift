import Foundation

/// Runs a program to completion and captures what it printed, for tests of the `scanpick` binary.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
    public var outputBytes: [UInt8]
}

/// Children of the tests are started as ``ChildProcess``es, never with Foundation's `Process`: that
/// one crashes listing a busy process's descriptors, and hands its children descriptors of the
/// tests' that kept a server's pipe open past its test (a CI run hung so once).
public enum ProcessRunner {

    /// The `scanpick` executable built beside the test bundle (`.build/<config>/scanpick`).
    public static var scanpick: String {
        let testBinary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return ((testBinary as NSString).deletingLastPathComponent as NSString).appendingPathComponent("scanpick")
    }

    /// Runs `scanpick` with `arguments` in `directory` (default: the repository root).
    public static func scanpick(_ arguments: [String], in directory: String? = nil) async throws -> ProcessResult {
        try await run(scanpick, arguments, in: directory ?? Repository.root)
    }

    /// Runs `executable` to its end. The wait happens on a thread of its own, never on Swift's task
    /// pool: a full parallel run has two pool threads, and tests waiting on child processes there
    /// starved every other test's tasks (network monitors, URLSession completions) for seconds.
    public static func run(_ executable: String, _ arguments: [String], in directory: String, input: [UInt8]? = nil)
        async throws -> ProcessResult
    {
        try await onOwnThread { try runBlocking(executable, arguments, in: directory, input: input) }
    }

    /// ``run(_:_:in:input:)`` on the calling thread (for code already on a thread of its own).
    public static func runBlocking(
        _ executable: String, _ arguments: [String], in directory: String, input: [UInt8]? = nil
    ) throws -> ProcessResult {
        // Standard error goes to a file, so neither stream can fill up and stall the process.
        let errorPath = NSTemporaryDirectory() + "/scanpick-stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        guard let errorFile = FileHandle(forWritingAtPath: errorPath) else {
            throw ChildProcessError("cannot write \(errorPath)")
        }
        let (output, inputPipe) = (Pipe(), Pipe())
        let process = try ChildProcess(
            executable, arguments, in: directory,
            standardInput: input == nil ? nil : inputPipe.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor, standardError: errorFile.fileDescriptor)
        // The child has its copies: ours are closed, so its end of output is the pipe's end.
        try output.fileHandleForWriting.close()
        try inputPipe.fileHandleForReading.close()
        try errorFile.close()
        if let input { try writeAll(input, to: inputPipe.fileHandleForWriting.fileDescriptor) }
        try inputPipe.fileHandleForWriting.close()
        let outputData = PipeReading.readToEnd(output.fileHandleForReading)
        try? output.fileHandleForReading.close()
        process.waitUntilExit()
        let errorData = FileManager.default.contents(atPath: errorPath) ?? Data()
        return ProcessResult(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self), outputBytes: [UInt8](outputData))
    }

    /// Writes `bytes` to a child's standard input. A child that ends before reading it all (a
    /// config it refuses) is no error here: its status and output say why.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 {
                written += count
            } else if errno == EPIPE {
                return
            } else if errno != EINTR {
                throw ChildProcessError("cannot write the child's input: \(String(cString: strerror(errno)))")
            }
        }
    }
}
