import Foundation
import Synchronization
import TestSupport

/// A running `scanpick station --wedge` whose standard input the test holds (each line written is
/// a hardware-scanner code), with the address of its local page.
final class StationProcess: Sendable {
    private let process: Process
    private let input: Pipe
    private let output = LogBuffer()
    let page: URL

    init(config: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.scanpick)
        process.arguments = ["station", "--wedge", "--config", config]
        let process = self.process
        let output = self.output
        input = try ProcessRunner.spawning {
            let input = Pipe()
            let stdout = Pipe()
            process.standardInput = input
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            stdout.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
            try process.run()
            return input
        }
        let deadline = Date().addingTimeInterval(20)
        var found: URL?
        while found == nil && Date() < deadline {
            let text = output.text
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("page: ") }) {
                found = URL(string: String(line.dropFirst("page: ".count)))
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard let found else {
            process.terminate()
            throw ServerProcessError(message: "the station did not start its page")
        }
        page = found
    }

    /// Types a code on the wedge scanner.
    func scan(_ code: String) {
        input.fileHandleForWriting.write(Data((code + "\n").utf8))
    }

    /// Ends standard input and waits for the station to stop.
    func stop() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
