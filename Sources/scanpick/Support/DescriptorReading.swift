import Foundation

/// Reads a pipe or standard input to its end, retrying a `read` a signal interrupted (EINTR):
/// Foundation's `readDataToEndOfFile()` ends the process with a `try!` instead.
enum DescriptorReading {
    static func readToEnd(_ descriptor: Int32) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return data }
            data.append(contentsOf: chunk[..<got])
        }
    }
}
