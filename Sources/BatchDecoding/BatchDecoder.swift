import Dispatch
import Foundation
import Imaging
import Scanning
import Synchronization

/// Decodes many images on several threads and hands back reports strictly in input order, each as
/// soon as it and every report before it are ready (so output streams, and memory holds at most the
/// few reports that finished early).
///
///     let decoder = BatchDecoder(options: ReaderOptions(), jobs: 2)
///     decoder.run(DecodeInput.collect(["SampleImages"])) { report in print(report.file) }
public struct BatchDecoder: Sendable {
    public var options: ReaderOptions
    public var limits: ImageLoader.Limits
    /// Worker threads (default: one per core).
    public var jobs: Int

    public init(options: ReaderOptions = ReaderOptions(), limits: ImageLoader.Limits = .init(), jobs: Int? = nil) {
        self.options = options
        self.limits = limits
        self.jobs = max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Decodes `inputs`, calling `emit` once per input in input order (never concurrently), and
    /// `progress` with the number of finished inputs after each one.
    public func run(
        _ inputs: [DecodeInput], progress: ((Int) -> Void)? = nil, emit: (ImageReport) -> Void
    ) {
        let state = Mutex(OrderedResults(count: inputs.count))
        let loader = ImageLoader(limits: limits)
        let workers = min(jobs, max(1, inputs.count))
        withoutActuallyEscaping(emit) { emit in
            withoutActuallyEscaping(progress ?? { _ in }) { progress in
                let sink = UncheckedSink(emit: emit, progress: progress)
                DispatchQueue.concurrentPerform(iterations: workers) { _ in
                    while let index = state.withLock({ $0.claimNext() }) {
                        let report = Self.decode(inputs[index], loader: loader, options: options)
                        state.withLock { results in
                            results.store(report, at: index)
                            while let ready = results.popReady() { sink.emit(ready) }
                            sink.progress(results.finished)
                        }
                    }
                }
            }
        }
    }

    /// Loads and scans one input (errors become part of the report). Each image gets a fresh ZBar
    /// scanner: a scanner carries state from one image into the next (the first scan line's
    /// threshold), and an image's result must not depend on which images a worker read before it,
    /// nor on `--jobs`. Measured on the corpus, the fresh scanner costs nothing visible.
    static func decode(_ input: DecodeInput, loader: ImageLoader, options: ReaderOptions) -> ImageReport {
        let start = ContinuousClock.now
        if let problem = input.problem {
            return ImageReport(file: input.path, barcodes: [], milliseconds: 0, error: problem)
        }
        do {
            let image = try loader.load(path: input.path)
            let barcodes = BarcodeReader(options: options).read(image)
            return ImageReport(file: input.path, barcodes: barcodes, milliseconds: start.milliseconds)
        } catch {
            return ImageReport(file: input.path, barcodes: [], milliseconds: start.milliseconds, error: error)
        }
    }
}

/// The callbacks of one ``BatchDecoder/run`` call. They are only ever called while holding the
/// batch's mutex, so never concurrently, which is what makes sharing them across workers sound.
private struct UncheckedSink: @unchecked Sendable {
    let emit: (ImageReport) -> Void
    let progress: (Int) -> Void
}

/// Which input is next, and the finished reports waiting for an earlier one.
private struct OrderedResults: ~Copyable {
    private var slots: [ImageReport?]
    private var nextToClaim = 0
    private var nextToEmit = 0
    private(set) var finished = 0

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    mutating func claimNext() -> Int? {
        guard nextToClaim < slots.count else { return nil }
        defer { nextToClaim += 1 }
        return nextToClaim
    }

    mutating func store(_ report: ImageReport, at index: Int) {
        slots[index] = report
        finished += 1
    }

    mutating func popReady() -> ImageReport? {
        guard nextToEmit < slots.count, let report = slots[nextToEmit] else { return nil }
        slots[nextToEmit] = nil
        nextToEmit += 1
        return report
    }
}

extension ContinuousClock.Instant {
    /// Milliseconds from this instant until now.
    var milliseconds: Double {
        let elapsed = ContinuousClock.now - self
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}
