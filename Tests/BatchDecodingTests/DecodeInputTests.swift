import Foundation
import Imaging
import TestSupport
import Testing

@testable import BatchDecoding

@Suite struct DecodeInputTests {
    @Test func walksDirectoriesRecursivelyInSortedOrderKeepingOnlyImages() throws {
        let folder = try TemporaryDirectory()
        for name in ["b/2.png", "b/1.JPG", "a.pgm", "notes.txt", "c/deeper/x.jpeg", ".hidden.png", "d.ppm"] {
            try folder.write(name, text: "x")
        }
        let inputs = DecodeInput.collect([folder.path])
        #expect(
            inputs.map { $0.path.replacingOccurrences(of: folder.path + "/", with: "") } == [
                "a.pgm", "b/1.JPG", "b/2.png", "c/deeper/x.jpeg", "d.ppm",
            ])
        #expect(inputs.allSatisfy { $0.problem == nil })
    }

    @Test func keepsExplicitFilesWhateverTheirNameAndReportsMissingOnes() throws {
        let folder = try TemporaryDirectory()
        let notes = try folder.write("notes.txt", text: "hello")
        let inputs = DecodeInput.collect([notes, folder.file("nope.png")])
        #expect(inputs == [DecodeInput(path: notes), DecodeInput(path: folder.file("nope.png"), problem: .notFound)])
    }

    @Test func reportsLinkLoopsAndDirectoryCyclesWithoutWalkingForever() throws {
        let folder = try TemporaryDirectory()
        try folder.write("sub/ok.png", text: "x")
        let files = FileManager.default
        try files.createSymbolicLink(
            atPath: folder.file("sub/self.png"), withDestinationPath: folder.file("sub/self.png"))
        try files.createSymbolicLink(atPath: folder.file("sub/up"), withDestinationPath: folder.path)
        try files.createSymbolicLink(atPath: folder.file("sub/gone.png"), withDestinationPath: folder.file("nowhere"))
        try files.createSymbolicLink(atPath: folder.file("sub/gone.txt"), withDestinationPath: folder.file("nowhere"))
        let inputs = DecodeInput.collect([folder.path])
        #expect(
            inputs == [
                DecodeInput(path: folder.file("sub/gone.png"), problem: .danglingLink),
                DecodeInput(path: folder.file("sub/ok.png")),
                DecodeInput(path: folder.file("sub/self.png"), problem: .symlinkLoop),
                DecodeInput(path: folder.file("sub/up"), problem: .symlinkLoop),
            ])
    }
}
