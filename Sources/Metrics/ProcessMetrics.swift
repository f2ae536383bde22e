import Foundation

/// The standard `process_*` families every Prometheus client exports (CPU seconds, resident and
/// virtual memory, open and allowed file descriptors, start time), read from `/proc/self` when
/// scraped, and `scanpick_build_info`: the same names a fleet's dashboards already know.
///
///     ProcessMetrics.write(to: &text, version: ScanPickVersion.current)
///
/// Only `/proc/self` is read, which the packaged units' `ProcSubset=pid` still shows; the start
/// time comes from the boot clock, not `/proc/stat`, which it hides. A figure that cannot be read
/// is left out, never made up.
public enum ProcessMetrics {
    /// What `/proc/self/stat` says of this process.
    public struct Sample: Sendable, Equatable {
        /// User and system CPU time, in seconds.
        public var cpuSeconds: Double
        /// Resident set size, in bytes.
        public var residentBytes: Int
        /// Virtual memory size, in bytes.
        public var virtualBytes: Int
        /// When the process started, in seconds since the Unix epoch.
        public var startTime: Double
    }

    /// Writes `scanpick_build_info{version}` and the `process_*` families to `text`.
    public static func write(to text: inout PrometheusText, version: String) {
        text.family("scanpick_build_info", .gauge, "Always 1; its version label is this build's (scanpick --version).")
        text.sample("scanpick_build_info", [("version", version)], value: 1)
        if let sample = sample() {
            text.family("process_cpu_seconds_total", .counter, "Total user and system CPU time spent in seconds.")
            text.sample("process_cpu_seconds_total", value: sample.cpuSeconds)
            text.family("process_resident_memory_bytes", .gauge, "Resident memory size in bytes.")
            text.sample("process_resident_memory_bytes", value: sample.residentBytes)
            text.family("process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes.")
            text.sample("process_virtual_memory_bytes", value: sample.virtualBytes)
            text.family(
                "process_start_time_seconds", .gauge, "Start time of the process since unix epoch in seconds.")
            text.sample("process_start_time_seconds", value: sample.startTime)
        }
        if let open = openDescriptors() {
            text.family("process_open_fds", .gauge, "Number of open file descriptors.")
            text.sample("process_open_fds", value: open)
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            text.family("process_max_fds", .gauge, "Maximum number of open file descriptors.")
            text.sample("process_max_fds", value: UInt64(limit.rlim_cur))
        }
    }

    /// This process's CPU time, memory and start time, or nil when `/proc/self/stat` cannot be read.
    public static func sample() -> Sample? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var boot = timespec()
        guard ticks > 0, clock_gettime(CLOCK_BOOTTIME, &boot) == 0 else { return nil }
        let sinceBoot = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9
        return parse(
            stat: stat, ticksPerSecond: ticks, pageSize: Int(sysconf(Int32(_SC_PAGESIZE))),
            now: Date().timeIntervalSince1970, secondsSinceBoot: sinceBoot)
    }

    /// A `/proc/PID/stat` line's figures: `utime` and `stime` (fields 14, 15), `starttime` (22,
    /// clock ticks after boot), `vsize` (23, bytes) and `rss` (24, pages). The command name (field 2)
    /// may hold spaces and parentheses, so fields are counted from its closing parenthesis.
    static func parse(stat: String, ticksPerSecond: Double, pageSize: Int, now: Double, secondsSinceBoot: Double)
        -> Sample?
    {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is the first.
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        func field(_ number: Int) -> Double? {
            let index = number - 3
            return index < fields.count ? Double(fields[index]) : nil
        }
        guard let user = field(14), let system = field(15), let started = field(22), let virtual = field(23),
            let resident = field(24), virtual >= 0, resident >= 0, virtual < 1e18, resident * Double(pageSize) < 1e18
        else { return nil }
        return Sample(
            cpuSeconds: (user + system) / ticksPerSecond, residentBytes: Int(resident) * pageSize,
            virtualBytes: Int(virtual), startTime: now - (secondsSinceBoot - started / ticksPerSecond))
    }

    /// Entries of `/proc/self/fd` (the directory's own descriptor, open while it is read, not counted).
    static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { count += 1 }
        }
        return max(0, count - 1)
    }
}
