import Capture
import ConfigFile
import Foundation

/// Reading the station config's `scanners`: each handheld scanner's device and how its keys decode.
extension StationConfiguration {
    /// `scanners`: at most ``maxScanners``, each a device under /dev/ listed once.
    static func readScanners(_ reader: inout ConfigReader) throws(ConfigError) -> [ScannerSettings] {
        var scanners: [ScannerSettings] = []
        for var options in try reader.objects("scanners") ?? [] {
            guard scanners.count < Self.maxScanners else {
                throw reader.error("scanners", "may list at most \(Self.maxScanners) scanners")
            }
            let device = try options.requiredString("device")
            // Standardized, so "/dev/../etc/x" cannot pass for a device and one scanner cannot be
            // listed twice under two spellings (the second would only fail its grab).
            let standardized = URL(fileURLWithPath: device).standardizedFileURL.path
            guard standardized.hasPrefix("/dev/"), device.utf8.count <= 4096, !device.utf8.contains(0) else {
                throw options.error("device", "must be a device path under /dev/ (e.g. /dev/input/by-id/…-event-kbd)")
            }
            guard !scanners.contains(where: { $0.device == standardized }) else {
                throw options.error("device", "\(standardized) is listed twice: each scanner once")
            }
            var scanner = ScannerSettings(device: standardized)
            if let name = try options.string("terminator") {
                guard let key = Self.terminatorKeys.first(where: { $0.key == name })?.value else {
                    let names = Self.terminatorKeys.map { "\"\($0.key)\"" }.joined(separator: " or ")
                    throw options.error("terminator", "must be \(names), not '\(name.prefix(20))'")
                }
                scanner.decoding.terminator = key
            }
            scanner.decoding.maxGap =
                Double(
                    try options.integer(
                        "maxKeyGapMilliseconds", default: Int(scanner.decoding.maxGap * 1000), in: 5...1000)) / 1000
            if let separator = try options.string("groupSeparator") {
                // Letters and digits are data: "0" as a separator would split every GTIN.
                guard (1...4).contains(separator.count),
                    separator.unicodeScalars.allSatisfy({
                        (0x21...0x7E).contains($0.value) && !CharacterSet.alphanumerics.contains($0)
                    })
                else {
                    throw options.error(
                        "groupSeparator", "must be 1 to 4 visible ASCII symbols, no letters or digits (e.g. \"~\")")
                }
                scanner.decoding.groupSeparator = separator
            }
            try options.finish()
            scanners.append(scanner)
        }
        return scanners
    }
}
