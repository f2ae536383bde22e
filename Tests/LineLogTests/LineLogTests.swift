import Foundation
import Synchronization
import TestSupport
import Testing

@testable import LineLog

/// Lines reach the file whole and in order; a reader that never reads costs lines, not the writer.
@Suite struct LineLogTests {
    @Test func linesFromManyThreadsArriveWholeAndEachThreadsInOrder() throws {
        let file = try LogFile()
        let log = LineLog(descriptor: file.descriptor)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for number in 0..<500 { log.write(#"{"thread":\#(thread),"n":\#(number)}"#) }
        }
        log.flush()
        let lines = try file.lines()
        #expect(lines.count == 2000)
        for thread in 0..<4 {
            let own = lines.filter { $0.hasPrefix(#"{"thread":\#(thread),"#) }.map(String.init)
            #expect(own == (0..<500).map { #"{"thread":\#(thread),"n":\#($0)}"# })
        }
    }

    /// A busy server logs a line per request; the writing thread must not be woken for each.
    @Test func linesArrivingSteadilyAreGatheredIntoFewWrites() throws {
        let file = try LogFile()
        let log = LineLog(descriptor: file.descriptor)
        let start = ContinuousClock.now
        for number in 0..<2000 {  // one line every 20 µs, as 50,000 requests a second would log
            let next = start + .microseconds(20 * number)
            while ContinuousClock.now < next {}
            log.write(#"{"n":\#(number)}"#)
        }
        log.flush()
        let elapsed = ContinuousClock.now - start
        // Each write waits `gathering` first, so there can be no more writes than that allows;
        // a thread woken per line would have made hundreds.
        let allowed = Int(elapsed / log.gathering) + 1
        #expect(log.batchesWritten <= allowed)
        #expect(try file.lines().count == 2000)
    }

    /// Gathering must never make a caller wait: a flush, or lines taking half the room, end it.
    @Test func aFlushOrHalfTheRoomTakenEndsTheGatheringAtOnce() throws {
        let file = try LogFile()
        // Gathering for ten minutes: anything written within seconds was written because it had to.
        let log = LineLog(descriptor: file.descriptor, capacity: 10, gathering: .seconds(600))
        func linesInFile() -> Int { (try? file.lines().count) ?? 0 }
        log.write("one")
        let start = ContinuousClock.now
        #expect(log.flush(waitingAtMost: .seconds(30)))
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(linesInFile() == 1)
        for number in 0..<5 { log.write("line \(number)") }  // half of the room
        let deadline = ContinuousClock.now + .seconds(20)
        while linesInFile() < 6, ContinuousClock.now < deadline { usleep(1000) }
        #expect(linesInFile() == 6)
    }

    /// A reader that never reads must not hold the process's exit for ever.
    @Test func aFlushGivesUpAfterItsLimitWhenNobodyReads() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let log = LineLog(descriptor: ends[1])
        for number in 0..<2000 { log.write(String(repeating: "x", count: 100) + "\(number)") }  // over 64 KiB
        #expect(!log.flush(waitingAtMost: .milliseconds(300)))
        // Read it all, so that the writing thread is not left blocked on a pipe closed under it.
        let readEnd = ends[0]
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while read(readEnd, &buffer, buffer.count) > 0 {}
            close(readEnd)
        }.start()
        #expect(log.flush(waitingAtMost: .seconds(30)))
        close(ends[1])
    }

    @Test func aReaderThatNeverReadsCostsLinesNotTheCaller() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let readEnd = ends[0]
        defer { close(readEnd) }
        let log = LineLog(descriptor: ends[1], capacity: 100)
        // A pipe holds 64 KiB; nobody reads it. Writing far more than that must return at once.
        let start = ContinuousClock.now
        for number in 0..<20_000 { log.write(String(repeating: "x", count: 100) + "\(number)") }
        #expect(ContinuousClock.now - start < .seconds(5))
        // Reading lets the writer go on; the drop is reported in the log itself.
        let reader = try await onOwnThread { () -> String in
            var collected = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !String(decoding: collected, as: UTF8.self).contains("log_lines_dropped") {
                let count = read(readEnd, &buffer, buffer.count)
                if count <= 0 { break }
                collected.append(contentsOf: buffer[..<count])
            }
            return String(decoding: collected, as: UTF8.self)
        }
        #expect(reader.contains(#""event":"log_lines_dropped""#))
        close(ends[1])
    }

    /// The line saying lines were dropped is shaped as every other: JSON with `time` and `level`.
    @Test func theDroppedLinesLineHasATimeAndALevel() throws {
        let line = LineLog.droppedLine(42, at: Date(timeIntervalSince1970: 1_800_000_000))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2027-01-15T08:00:00.000Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["event"] as? String == "log_lines_dropped")
        #expect(object["count"] as? Int == 42)
    }
}

/// A log file in a folder of its own, open for writing for as long as the test uses this value
/// (a `FileHandle` closes its descriptor when it goes).
struct LogFile {
    let folder: TemporaryDirectory
    let handle: FileHandle

    init() throws {
        folder = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: folder.file("log.txt"), contents: nil))
        handle = try #require(FileHandle(forWritingAtPath: folder.file("log.txt")))
    }

    var descriptor: Int32 { handle.fileDescriptor }

    /// The lines written so far.
    func lines() throws -> [Substring] {
        try String(contentsOfFile: folder.file("log.txt"), encoding: .utf8).split(separator: "\n")
    }
}
