import ArgumentParsing
import Imaging
import Scanning

extension DecodeCommand {
    /// What `scanpick decode` takes; defaults and the try-harder description come from the libraries.
    struct Arguments: CommandArguments {
        var json = Flag("json", help: "Print one JSON object per image instead of SYMBOLOGY:DATA lines.")
        var symbologies = Option<Set<Symbology>?>(
            "symbologies", short: "S", valueName: "LIST",
            help:
                "Comma-separated names to look for (\(Symbology.allCases.map(\.configName).joined(separator: ", ")); 'all'). Default: all but isbn10/isbn13 and those ZBar lacks (\(Symbology.zbarLacks.map(\.configName).sorted().joined(separator: ", ")), read by zxing-cpp).",
            parse: { text throws(UsageError) in
                do {
                    return try Symbology.parseList(text)
                } catch {
                    throw UsageError("has an \(error)")
                }
            })
        var tryHarder = Flag("try-harder", help: BarcodeReader.tryHarderDescription)
        var retryPasses = Option<[BarcodeReader.RetryPass]?>(
            "retry-passes", valueName: "LIST",
            help:
                "The try-harder looks by ZBar, in order (implies --try-harder). Default, in this order: \(BarcodeReader.RetryPass.standard.map(\.name).joined(separator: ", ")).",
            parse: { list throws(UsageError) in
                var passes: [BarcodeReader.RetryPass] = []
                for name in list.split(separator: ",") {
                    guard let pass = BarcodeReader.RetryPass(name: String(name)) else {
                        let known = BarcodeReader.RetryPass.allCases.map(\.name).joined(separator: ", ")
                        throw UsageError("has an unknown pass '\(name)' (known: \(known))")
                    }
                    passes.append(pass)
                }
                return passes
            })
        var noAngledLook = Flag(
            "no-angled-look",
            help: "With --try-harder, skip the last look, for linear codes at an angle (to measure what it gains).")
        var scanLineSpacing = Option<Int>(
            "scan-line-spacing", valueName: "N",
            help:
                "ZBar looks along every Nth row and column, QR codes it misses are found by zxing-cpp, and EAN/UPC must be read on 4 lines: as a station's camera with camera.scanLineSpacing N (there \(ReaderOptions.cameraScanLineSpacing) unless set). --try-harder's retry passes look at every line.",
            default: 1, in: 1...ReaderOptions.maxScanLineSpacing)
        var joinAddOns = Flag(
            "join-add-ons",
            help: "Report an EAN-2/EAN-5 add-on appended to its EAN/UPC (978073520044951299), not on its own.")
        var code39FullASCII = Flag(
            "code39-full-ascii",
            help:
                "Decode Code 39 Full ASCII shifts (+A is a, /A is !); a code with an undefined shift stays as printed.")
        var jobs = Option<Int?>(
            "jobs", short: "j", valueName: "N", help: "Images decoded at once (default: one per core).", in: 1...256)
        var expect = Option<String?>(
            "expect", valueName: "MANIFEST", help: "Compare results with a CSV manifest and print a table.")
        var maxPixels = Option<Int>(
            "max-pixels", valueName: "N", help: "Refuse images larger than N pixels before allocating them.",
            default: ImageLoader.Limits().maxPixels, in: 1...(1 << 40))
        var quiet = Flag("quiet", short: "q", help: "No summary line on standard error.")
        var paths = Argument<[String]>("PATH", help: "Image files or directories.", optional: true)
    }
}

extension ParsedArguments where Arguments == DecodeCommand.Arguments {
    /// The reader's options as the flags set them.
    var readerOptions: ReaderOptions {
        var options = ReaderOptions(
            tryHarder: self[\.tryHarder], joinsAddOns: self[\.joinAddOns], code39FullASCII: self[\.code39FullASCII])
        if let symbologies = self[\.symbologies] { options.symbologies = symbologies }
        options.angledLook = !self[\.noAngledLook]
        options.scanLineSpacing = self[\.scanLineSpacing]
        if let passes = self[\.retryPasses] {
            options.tryHarder = true
            options.retryPasses = passes
        }
        return options
    }
}
