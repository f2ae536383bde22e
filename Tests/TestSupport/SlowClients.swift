import Foundation

/// Connections that send a request head one byte at a time and never finish it (slowloris), held
/// by a child process (`Tests/Scripts/slow-clients.py`), never by the test process.
///
/// Thousands of open descriptors in the test process would be a burden on every test beside it
/// (and Foundation's `Process.run()` would crash listing them, swift-corelibs-foundation#5472,
/// which is why the tests start processes with ``ChildProcess``).
/// Every call blocks until the child answers, so use it on a thread of your own (``onOwnThread(_:)``).
///
///     let attack = try SlowClients(port: port, count: 2000, from: ["127.0.0.1"])
///     let kept = try attack.trickle()
public final class SlowClients: @unchecked Sendable {
    private let process: ChildProcess
    private let commands: FileHandle
    private let answers: FileHandle
    private var pending: [UInt8] = []
    /// How many connections the child opened, and how many the server refused at connect.
    public private(set) var opened = 0
    public private(set) var refusedAtConnect = 0

    /// Opens `count` connections to `127.0.0.1:port` from each address of `sources`.
    public init(port: UInt16, count: Int, from sources: [String]) throws {
        let (input, output) = (Pipe(), Pipe())
        process = try ChildProcess(
            "/usr/bin/python3",
            [
                Repository.root + "/Tests/Scripts/slow-clients.py", String(port), String(count),
                sources.joined(separator: ","),
            ],
            standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor)
        try input.fileHandleForReading.close()  // the child's copies are the pipes' ends
        try output.fileHandleForWriting.close()
        commands = input.fileHandleForWriting
        answers = output.fileHandleForReading
        let first = try readAnswer()
        opened = first["opened"] ?? 0
        refusedAtConnect = first["refused"] ?? 0
    }

    deinit {
        try? commands.close()
        process.waitUntilExit()
    }

    /// Sends one more byte on every connection; returns how many the server still keeps open.
    public func trickle() throws -> Int { try ask("trickle")["kept"] ?? 0 }

    /// How many connections the server closes within `timeout` in all.
    public func closedByServer(within timeout: Duration) throws -> Int {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return try ask("closed \(seconds)")["closed"] ?? 0
    }

    private func ask(_ command: String) throws -> [String: Int] {
        try commands.write(contentsOf: Data((command + "\n").utf8))
        return try readAnswer()
    }

    /// Reads the child's next line of JSON: an object of counts.
    private func readAnswer() throws -> [String: Int] {
        while !pending.contains(UInt8(ascii: "\n")) {
            let chunk = PipeReading.readOnce(answers)
            guard !chunk.isEmpty else { throw RawConnectionError("slow-clients.py ended without answering") }
            pending += chunk
        }
        let end = pending.firstIndex(of: UInt8(ascii: "\n"))!
        let line = Data(pending[..<end])
        pending.removeSubrange(...end)
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            throw RawConnectionError("slow-clients.py answered \(String(decoding: line, as: UTF8.self))")
        }
        if let error = object["error"] as? String { throw RawConnectionError("slow-clients.py: \(error)") }
        return object.compactMapValues { ($0 as? NSNumber)?.intValue }
    }
}
