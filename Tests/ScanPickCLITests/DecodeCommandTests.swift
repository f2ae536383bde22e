import Foundation
import TestSupport
import Testing

/// `scanpick decode` as a user runs it: the built binary, real files, exit codes and output streams.
@Suite struct DecodeCommandTests {
    @Test func printsZbarimgLinesAndExitsZeroWhenEveryImageHasACode() async throws {
        let result = try await ProcessRunner.scanpick([
            "decode", "SampleImages/clean/ean13.png", "SampleImages/clean/upca.ppm",
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput == "EAN-13:5901234123457\nUPC-A:036000291452\n")
        #expect(result.standardError.contains("scanned 2 barcode symbols from 2 images"))
    }

    @Test func exitsFourWhenAnImageHasNoCode() async throws {
        let result = try await ProcessRunner.scanpick([
            "decode", "-q", "SampleImages/none", "SampleImages/clean/ean8.png",
        ])
        #expect(result.status == 4)
        #expect(result.standardOutput == "EAN-8:96385074\n")
        #expect(result.standardError.isEmpty)
    }

    @Test func exitsOneAfterDecodingEverythingElseWhenAFileIsUnreadable() async throws {
        let folder = try TemporaryDirectory()
        let bad = try folder.write("bad.png", text: "not a png")
        let result = try await ProcessRunner.scanpick([
            "decode", bad, "SampleImages/clean/ean8.png", folder.file("missing.jpg"),
        ])
        #expect(result.status == 1)
        #expect(result.standardOutput == "EAN-8:96385074\n")
        #expect(result.standardError.contains("\(bad): not a PNG, JPEG, PGM or PPM image"))
        #expect(result.standardError.contains("missing.jpg: no such file or directory"))

        // A file's name cannot start a line of its own or send the terminal a command.
        let sly = try folder.write("x\nscanpick: fake.png: all good\u{1B}[2J.png", text: "not a png")
        let named = try await ProcessRunner.scanpick(["decode", sly])
        #expect(named.status == 1)
        #expect(!named.standardError.contains("\u{1B}"))
        let lines = named.standardError.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains(#"x\nscanpick: fake.png: all good\u{1B}[2J.png: not a PNG"#))

        // With a manifest the same: every listed image matched, but a file could not be read.
        let manifest = try folder.write("m.csv", text: "file,symbology,data\nean8.png,EAN-8,96385074\n")
        try folder.write("ean8.png", bytes: try Repository.sampleBytes("clean/ean8.png"))
        let expected = try await ProcessRunner.scanpick(["decode", "-q", "--expect", manifest, folder.file("ean8.png")])
        #expect(expected.status == 0)
        let unlisted = try await ProcessRunner.scanpick(["decode", "-q", "--expect", manifest, folder.path])
        #expect(unlisted.status == 1, "\(unlisted)")
    }

    @Test func tryHarderReadsALightOnDarkCodeTheFirstLookMisses() async throws {
        let folder = try TemporaryDirectory()
        let drawn = BarcodeRenderer.ean13("590123412345")
        let inverted = ImageBytes.pgm(
            width: drawn.width, height: drawn.height, samples: drawn.pixels.map { 255 - Int($0) })
        let file = try folder.write("inverted.pgm", bytes: inverted)
        let fast = try await ProcessRunner.scanpick(["decode", "-q", file])
        #expect(fast.status == 4)
        #expect(fast.standardOutput.isEmpty)
        let harder = try await ProcessRunner.scanpick(["decode", "-q", "--try-harder", file])
        #expect(harder.status == 0)
        #expect(harder.standardOutput == "EAN-13:5901234123457\n")
    }

    @Test func joinAddOnsAppendsAnAddOnAndLeavesPlainCodesAlone() async throws {
        let result = try await ProcessRunner.scanpick([
            "decode", "-q", "--join-add-ons", "SampleImages/clean/ean13.png",
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput == "EAN-13:5901234123457\n")

        let folder = try TemporaryDirectory()
        let drawn = BarcodeRenderer.ean13("978073520044", addOn: "51299")
        let book = try folder.write(
            "book.pgm",
            bytes: ImageBytes.pgm(width: drawn.width, height: drawn.height, samples: drawn.pixels.map(Int.init)))
        let joined = try await ProcessRunner.scanpick(["decode", "-q", "--join-add-ons", book])
        #expect(joined.standardOutput == "EAN-13:978073520044951299\n")
        let separate = try await ProcessRunner.scanpick(["decode", "-q", book])
        #expect(Set(separate.standardOutput.split(separator: "\n")) == ["EAN-13:9780735200449", "EAN-5:51299"])
    }

    @Test func usageErrorsExitTwo() async throws {
        for arguments in [
            ["decode"], ["decode", "--jobs", "0", "x.png"], ["decode", "-S", "ean99", "x.png"], ["frobnicate"],
            ["decode", "--retry-passes", "inverted,upscaled", "x.png"],
        ] {
            let result = try await ProcessRunner.scanpick(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.standardError.isEmpty)
            #expect(result.standardOutput.isEmpty)
        }
    }

    /// A manifest that is a folder, missing, or only a header is named with what to do about it.
    @Test func aManifestThatCannotServeIsSaidPlainly() async throws {
        let folder = try TemporaryDirectory()
        let header = try folder.write("header.csv", text: "file,symbology,data\n")
        for (manifest, status, message) in [
            (folder.path, Int32(1), "cannot read manifest: it is a folder: name the CSV file"),
            (folder.file("nope.csv"), 1, "cannot read manifest: no such file"),
            (header, 2, "the manifest \(header) lists no image (only its header)"),
        ] {
            let result = try await ProcessRunner.scanpick(["decode", "--expect", manifest])
            #expect(result.status == status, "\(manifest)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }

    @Test func jsonGivesOneObjectPerImageInInputOrder() async throws {
        let folder = try TemporaryDirectory()
        try folder.write("zero.png", bytes: [])
        let result = try await ProcessRunner.scanpick([
            "decode", "--json", "-j", "3", "SampleImages", folder.file("zero.png"),
        ])
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let objects = try lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let sorted = try await ProcessRunner.scanpick(["decode", "--json", "-j", "1", "SampleImages"])
        #expect(objects.count == sorted.standardOutput.split(separator: "\n").count + 1)
        #expect(
            objects.dropLast().map { $0["file"] as? String }
                == sorted.standardOutput.split(separator: "\n").map {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["file"] as? String
                })
        #expect(objects.first?["file"] as? String == "SampleImages/angles/code128-40-frame.jpg")
        #expect(objects.last?["error"] as? String == "empty file (0 bytes)")
        #expect((objects.last?["symbols"] as? [Any])?.isEmpty == true)
        for object in objects.dropLast() {
            #expect(object["ms"] is Double)
            for symbol in object["symbols"] as? [[String: Any]] ?? [] {
                // GS1 symbols (DataBar, GS1-128) carry their elements too.
                let gs1 = ["DataBar", "DataBar-Exp"].contains(symbol["symbology"] as? String) || symbol["gs1"] != nil
                let keys: Set<String> = ["symbology", "data", "quality", "points", "orientation"]
                #expect(Set(symbol.keys) == (gs1 ? keys.union(["gs1"]) : keys))
            }
        }
    }

    @Test func jsonReportsAGS1DataMatrixsElementsWhenDataMatrixIsAskedFor() async throws {
        let file = "SampleImages/matrix/datamatrix-gs1.png"
        let unasked = try await ProcessRunner.scanpick(["decode", "-q", "--json", file])
        #expect(unasked.status == 4)
        let asked = try await ProcessRunner.scanpick(["decode", "-q", "--json", "-S", "datamatrix", file])
        #expect(asked.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(asked.standardOutput.utf8)) as? [String: Any])
        let symbol = try #require((object["symbols"] as? [[String: Any]])?.first)
        #expect(symbol["symbology"] as? String == "DataMatrix")
        #expect(
            symbol["gs1"] as? [String: String] == [
                "01": "09501101530003", "17": "2027-01-01", "10": "AB-12", "21": "SN0001",
            ])
        // The keys keep the element string's order.
        #expect(
            asked.standardOutput.contains(
                #""gs1":{"01":"09501101530003","17":"2027-01-01","10":"AB-12","21":"SN0001"}"#))
    }

    @Test func chosenSymbologiesLimitWhatIsReported() async throws {
        let upcAsEAN = try await ProcessRunner.scanpick(["decode", "-q", "-S", "ean13", "SampleImages/clean/upca.png"])
        #expect(upcAsEAN.standardOutput == "EAN-13:0036000291452\n")
        let onlyQR = try await ProcessRunner.scanpick([
            "decode", "-q", "--symbologies=qrcode", "SampleImages/multi/bench-three-codes.png",
        ])
        #expect(onlyQR.standardOutput == "QR-Code:LOC:A1-03-2\n")
    }

    @Test func tryHarderReadsEverySampleMadeForItAndTheFastPassDoesNot() async throws {
        let manifest = "SampleImages/try-harder/manifest.csv"
        let harder = try await ProcessRunner.scanpick(["decode", "-q", "--try-harder", "--expect", manifest])
        #expect(harder.status == 0, "\(harder.standardOutput)")
        let fast = try await ProcessRunner.scanpick(["decode", "-q", "--expect", manifest])
        #expect(fast.status != 0)
        for name in ["databar-long", "qrcode-cropped", "ean8-one-row"] {
            #expect(fast.standardOutput.contains("try-harder/\(name).png: missed"))
        }
    }

    @Test func theAngledLookReadsEveryTurnedSample() async throws {
        let manifest = "SampleImages/angles/manifest.csv"
        let harder = try await ProcessRunner.scanpick(["decode", "-q", "--try-harder", "--expect", manifest])
        #expect(harder.status == 0, "\(harder.standardOutput)")
        let without = try await ProcessRunner.scanpick([
            "decode", "-q", "--try-harder", "--no-angled-look", "--expect", manifest,
        ])
        #expect(without.status != 0)
        for name in ["code128-45.png", "code39-60.png", "itf-35.png", "upca-50.png", "code128-40-frame.jpg"] {
            #expect(without.standardOutput.contains("angles/\(name): missed"), "\(name)")
        }
    }

    @Test func expectPrintsATableAndExitsZeroOnlyWhenEverythingMatches() async throws {
        let good = try await ProcessRunner.scanpick(["decode", "-q", "--expect", "SampleImages/manifest.csv"])
        #expect(good.status == 0, "\(good.standardOutput)")
        #expect(good.standardOutput.contains("symbology"))
        #expect(good.standardOutput.contains("total"))

        let folder = try TemporaryDirectory()
        let manifest = try folder.write(
            "m.csv",
            text: "file,symbology,data\nean13.png,EAN-13,5901234123457\nean8.png,EAN-8,00000000\nnone.png,,\n")
        try folder.write("ean13.png", bytes: try Repository.sampleBytes("clean/ean13.png"))
        try folder.write("ean8.png", bytes: try Repository.sampleBytes("clean/ean8.png"))
        try folder.write("none.png", bytes: try Repository.sampleBytes("clean/upce.png"))
        let bad = try await ProcessRunner.scanpick(["decode", "-q", "--expect", manifest, folder.path])
        #expect(bad.status == 3)
        #expect(bad.standardOutput.contains("ean8.png: misread, expected EAN-8 00000000, found EAN-8:96385074"))
        #expect(bad.standardOutput.contains("none.png: false positive, found UPC-E:01234565"))
        let total = bad.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        #expect(total.split(separator: " ").map(String.init) == ["total", "3", "1", "0", "1", "1"])
    }

    @Test func scoreJudgesSavedResultsByTheSameRules() async throws {
        let folder = try TemporaryDirectory()
        let decoded = try await ProcessRunner.scanpick(["decode", "-q", "--json", "SampleImages"])
        let results = try folder.write("results.jsonl", text: decoded.standardOutput)
        let scored = try await ProcessRunner.scanpick([
            "score", "--json", "--expect", "SampleImages/manifest.csv", results,
        ])
        #expect(scored.status == 0)
        let totals = try #require(
            try JSONSerialization.jsonObject(with: Data(scored.standardOutput.utf8)) as? [String: Int])
        #expect(totals["images"] == totals["correct"])
        #expect(totals["misread"] == 0)
        #expect(totals["noCodeImages"] == 3)
        #expect(totals["codeImages"] == totals["codeCorrect"])
        #expect((totals["codeImages"] ?? 0) + 3 == totals["images"])

        // Results that name no image of the manifest (decoded from another folder, or none at all)
        // scored nothing: that is said, and is not a pass.
        let elsewhere = try await ProcessRunner.scanpick(
            ["score", "--json", "--expect", Repository.root + "/SampleImages/manifest.csv", results], in: folder.path)
        let empty = try folder.write("empty.jsonl", text: "")
        let nothing = try await ProcessRunner.scanpick(["score", "--expect", "SampleImages/manifest.csv", empty])
        for unscored in [elsewhere, nothing] {
            #expect(unscored.status == 1)
            #expect(unscored.standardError.contains("results names an image of the manifest"), "\(unscored)")
            #expect(unscored.standardOutput.isEmpty)
        }
    }

    @Test func drawsProgressOnlyWhenStandardErrorIsATerminal() async throws {
        // `script` gives the command a pseudo-terminal, as a person at a shell has.
        let command = "\(ProcessRunner.scanpick) decode -q SampleImages SampleImages"
        let onTerminal = try await ProcessRunner.run(
            "/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], in: Repository.root)
        #expect(onTerminal.standardOutput.contains("decoding 138/138 images"))
        let piped = try await ProcessRunner.scanpick(["decode", "-q", "SampleImages", "SampleImages"])
        #expect(!piped.standardError.contains("decoding"))
        // 52 codes in the main set, 2 of the 7 in SampleImages/try-harder (DataBar symbols ZBar reads),
        // 1 of the 7 in SampleImages/matrix (the GS1-128: the rest are symbologies ZBar lacks) and 1 of
        // the 6 in SampleImages/angles (the big EAN-13 at 30°), twice.
        #expect(piped.standardOutput.split(separator: "\n").count == 112)
    }

    @Test func helpDocumentsOptionsAndExitCodes() async throws {
        let help = try await ProcessRunner.scanpick(["decode", "--help"])
        #expect(help.status == 0)
        for text in [
            "--json", "--jobs N", "--expect MANIFEST", "--symbologies LIST", "--max-pixels N", "Exit codes:",
            "4  some image had no code",
        ] {
            #expect(help.standardOutput.contains(text), "\(text)")
        }
        let top = try await ProcessRunner.scanpick(["--help"])
        #expect(top.standardOutput.contains("decode"))
    }

    @Test func aFIFOIsRefusedAtOnceNotWaitedOn() async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.file("frames.png")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Should decode wait on the FIFO anyway, a writer comes along after 10 s and ends it, so a
        // regression fails on its message instead of hanging the suite.
        let rescue = Thread {
            Thread.sleep(forTimeInterval: 10)
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        rescue.start()
        let result = try await ProcessRunner.scanpick(["decode", fifo, "SampleImages/clean/ean8.png"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "EAN-8:96385074\n")
        #expect(result.standardError.contains("\(fifo): not a regular file"))
    }

    @Test func aPictureOverTheLimitNamesTheOptionThatSetsIt() async throws {
        let file = "SampleImages/clean/ean8.png"
        let text = try await ProcessRunner.scanpick(["decode", "-q", "--max-pixels", "100", file])
        #expect(text.status == 1)
        #expect(text.standardError.contains("pixels, over the limit of 100 pixels (--max-pixels)"))
        let json = try await ProcessRunner.scanpick(["decode", "-q", "--json", "--max-pixels", "100", file])
        #expect(json.standardOutput.contains("over the limit of 100 pixels (--max-pixels)\"}"))
    }

    @Test func aFolderWithoutImagesIsAUsageError() async throws {
        let folder = try TemporaryDirectory()
        try folder.write("notes.txt", text: "no images here")
        let result = try await ProcessRunner.scanpick(["decode", folder.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("no images in \(folder.path)"))
        #expect(result.standardOutput.isEmpty)
    }
}
