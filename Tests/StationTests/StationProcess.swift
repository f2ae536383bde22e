import Foundation
import Synchronization
import TestSupport

/// A running `scanpick station` (by default `--wedge`, whose standard input the test holds: each
/// line written is a hardware-scanner code), with the address of its local page and what it printed.
final class StationProcess: Sendable {
    private let process: ChildProcess
    private let input: Pipe
    private let output = LogBuffer()
    private let errors = LogBuffer()
    let page: URL

    /// Starts the station and waits (on a thread of its own, not the task pool) for its page.
    /// Without `readingItsLog`, nobody reads its standard error: the read end is closed at once,
    /// as a terminal or `tee` that went away leaves it.
    init(config: String, arguments: [String] = ["--wedge"], readingItsLog: Bool = true) async throws {
        let (input, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        let process = try ChildProcess(
            ProcessRunner.scanpick, ["station"] + arguments + ["--config", config],
            standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: stdout.fileHandleForWriting.fileDescriptor,
            standardError: stderr.fileHandleForWriting.fileDescriptor)
        // The child holds its ends now: ours closed, its exit is the pipes' end of file.
        try input.fileHandleForReading.close()
        try stdout.fileHandleForWriting.close()
        try stderr.fileHandleForWriting.close()
        self.process = process
        self.input = input
        let output = self.output
        let errors = self.errors
        output.collect(stdout)
        if readingItsLog {
            errors.collect(stderr)
        } else {
            try stderr.fileHandleForReading.close()
            errors.finish()
        }
        let found: URL? = try await onOwnThread {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline && process.isRunning {
                if let line = output.text.split(separator: "\n").first(where: { $0.hasPrefix("page: ") }) {
                    return URL(string: String(line.dropFirst("page: ".count)))
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return nil
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            throw ServerProcessError(message: "the station did not start its page: \(output.text) \(errors.text)")
        }
        page = found
    }

    /// What the station printed so far (standard output).
    var standardOutput: String { output.text }

    /// What the station logged so far (standard error), as written.
    var standardError: String { errors.text }

    /// The JSON lines the station logged so far (standard error), e.g. its scans.
    var logLines: [[String: Any]] {
        errors.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The most memory the station has held so far (Linux's VmHWM), in KiB; nil once it has exited.
    var peakMemoryKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// The names of the station's threads now (a source being read has its own: `source-1`).
    var threadNames: [String] {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return ids.compactMap { id in
            (try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Types a code on the wedge scanner.
    func scan(_ code: String) {
        input.fileHandleForWriting.write(Data((code + "\n").utf8))
    }

    /// Ends the scanner's input (the station keeps running).
    func endInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Sends `signal` to the station (SIGHUP: re-read the config).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Stops the station as an operator does (SIGTERM) and waits (off the task pool) for it to exit.
    func stop() async -> Int32 {
        endInput()
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let process = self.process
        return
            (try? await onOwnThread { [output, errors] in
                process.waitUntilExit()
                output.waitForEnd()  // what it printed last is read, not only written
                errors.waitForEnd()
                return process.terminationStatus
            }) ?? -1
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
