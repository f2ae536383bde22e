import Foundation
import Queue
import TestSupport
import Testing

/// A salvage that does not fit on its disk says the disk is full (it once said
/// "NSCocoaErrorDomain Code=640"), and leaves nothing behind.
@Suite struct SalvageFileTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"))
    func aSalvageOnAFullDiskSaysTheDiskIsFull() async throws {
        let folder = try TemporaryDirectory()
        let disk = folder.file("disk")
        #expect(mkdir(disk, 0o700) == 0)
        let mounted = try await ProcessRunner.run(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", disk], in: folder.path)
        try #require(mounted.status == 0, "\(mounted.standardError)")
        defer { umount2(disk, Int32(MNT_DETACH)) }
        let one = try JSONDecoder().decode(
            SalvagedAction.self,
            from: Data(
                #"""
                {"id":1,"org":"acme","kind":"pick","pickTaskId":"t1","label":"A1","idempotencyKey":"k1",
                 "state":"pending","tries":0,"createdAt":"2026-12-06T05:00:00Z","payload":"{\"qty\":1}"}
                """#.utf8))
        let actions = (1...2_000).map { id in
            var action = one
            action.id = id
            action.idempotencyKey = "key-\(id)-" + String(repeating: "k", count: 100)
            return action
        }
        let target = disk + "/salvage.jsonl"
        do {
            try SalvageFile.write(actions, to: target)
            Issue.record("a salvage of 2,000 actions fitted on a 64 KiB disk")
        } catch {
            let message = "\(error)"
            #expect(
                message.contains("the disk holding \(disk.replacingOccurrences(of: "//", with: "/")) is full"),
                "\(message)")
            #expect(!message.contains("NSCocoaErrorDomain"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
    }
}
