import Foundation
import Synchronization

/// Runs a program to completion and captures what it printed, for tests of the `scanpick` binary.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
    public var outputBytes: [UInt8]
}

public enum ProcessRunner {
    private static let spawnLock = Mutex(())

    /// Runs `body`, which makes pipes and starts a child process, while no other thread of the tests
    /// does the same. Foundation's `Process` on Linux hands the child descriptors (the pipes, and a
    /// socket whose closing tells it the child ended) that are not closed on exec; a server started
    /// at the same moment on another thread would inherit them and keep them open, so a later
    /// `waitUntilExit` or read to end of file on the first child never returned (a CI run hung so).
    public static func spawning<T>(_ body: () throws -> T) throws -> T {
        try spawnLock.withLock { _ in try body() }
    }

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        // Standard error goes to a file, so neither stream can fill up and stall the process.
        let errorPath = NSTemporaryDirectory() + "/scanpick-stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let (output, inputPipe, errorFile) = try spawning {
            let output = Pipe()
            let errorFile = FileHandle(forWritingAtPath: errorPath)
            process.standardOutput = output
            process.standardError = errorFile
            let inputPipe = Pipe()
            process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
            try process.run()
            return (output, inputPipe, errorFile)
        }
        if let input {
            inputPipe.fileHandleForWriting.write(Data(input))
            try inputPipe.fileHandleForWriting.close()
        }
        let outputData = PipeReading.readToEnd(output.fileHandleForReading)
        process.waitUntilExit()
        try? errorFile?.close()
        let errorData = FileManager.default.contents(atPath: errorPath) ?? Data()
        return ProcessResult(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self), outputBytes: [UInt8](outputData))
    }
}
