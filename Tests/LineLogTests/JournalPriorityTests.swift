import Foundation
import Testing

@testable import LineLog

/// Under systemd each JSON line carries the priority journald reads (`journalctl -p warning`).
@Suite struct JournalPriorityTests {
    @Test func eachLineIsTaggedByItsEventOrStatusOnlyForTheJournal() {
        let cases: [(String, String)] = [
            (#"{"event":"watchdog","loop":"capture","message":"busy"}"#, "<2>"),
            (#"{"time":"t","event":"sync_failed","error":"disk full"}"#, "<3>"),
            (#"{"time":"t","event":"scanner_lost","message":"unplugged"}"#, "<4>"),
            (#"{"event":"listening","address":"127.0.0.1:8080"}"#, "<5>"),
            (#"{"time":"t","event":"scan","accepted":true}"#, "<6>"),
            (#"{"time":"t","event":"drain_lock","error":"locked"}"#, "<3>"),
            (#"{"time":"t","event":"resume_failed","error":"x"}"#, "<3>"),
            (#"{"time":"t","event":"something_new"}"#, "<6>"),
            (#"{"method":"POST","path":"/api/picking/pick","status":500,"ms":1.2}"#, "<3>"),
            (#"{"method":"POST","path":"/api/picking/pick","status":409,"ms":1.2}"#, "<6>"),
            // An event's name quoted inside a message is not the line's event.
            (#"{"time":"t","event":"scan","message":"saw \"event\":\"watchdog\""}"#, "<6>"),
        ]
        for (line, prefix) in cases {
            #expect(JournalPriority.tagged(line, journal: true) == prefix + line, "\(line)")
            #expect(JournalPriority.tagged(line, journal: false) == line)
        }
    }

    /// A command's own words (several lines) are marked `err` line by line, only for the journal.
    @Test func aCommandsWordsAreErrLinesOnlyInTheJournal() {
        let words = "scanpick config check: no such file\nRun 'scanpick config check --help' for usage.\n"
        #expect(
            JournalPriority.taggedAsError(words, journal: true)
                == "<3>scanpick config check: no such file\n<3>Run 'scanpick config check --help' for usage.\n")
        #expect(JournalPriority.taggedAsError(words, journal: false) == words)
    }

    /// `JOURNAL_STREAM` is inherited by every child of a service; only the stream it names is the
    /// journal (a child whose standard error is a pipe or a file writes no prefixes).
    @Test func theJournalIsTheStreamJournalStreamNamesNotAnyInheritedVariable() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        var info = stat()
        #expect(fstat(descriptor, &info) == 0)
        let named = "\(info.st_dev):\(info.st_ino)"
        #expect(JournalPriority.isJournal(stream: named, descriptor: descriptor))
        #expect(!JournalPriority.isJournal(stream: "\(info.st_dev):\(info.st_ino + 1)", descriptor: descriptor))
        #expect(!JournalPriority.isJournal(stream: nil, descriptor: descriptor))
        #expect(!JournalPriority.isJournal(stream: "garbage", descriptor: descriptor))
        #expect(!JournalPriority.isJournal(stream: named, descriptor: -1))
    }
}
