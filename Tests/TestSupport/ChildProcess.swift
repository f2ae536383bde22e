import Foundation
import Synchronization

/// A child process started with `posix_spawn`, for the tests, in place of Foundation's `Process`.
/// On Linux `Process.run()` lists `/proc/self/fd` with a read that runs past glibc's buffer when
/// that buffer fills (about 1,350 open descriptors, which the parallel suite reaches), and the test
/// process crashes (swift-corelibs-foundation PR 5472, fixed after this toolchain). Here the child
/// closes every descriptor above standard error itself (`closefrom`), so it inherits nothing of
/// the tests' either, and a thread of its own waits for its end.
///
///     let child = try ChildProcess(ProcessRunner.scanpick, ["status"], standardError: pipe.write)
///     child.waitUntilExit(); print(child.terminationStatus)
public final class ChildProcess: Sendable {
    public let processIdentifier: pid_t
    /// The exit status, or the number of the signal that ended it; nil while it runs.
    private let ended = Mutex<Int32?>(nil)
    private let exited = DispatchSemaphore(value: 0)

    /// The tests write to children's pipes (a station's keyboard-wedge input, say), and a child may
    /// end before reading it all (a config it refuses): ignored, SIGPIPE turns that into an EPIPE
    /// the writer sees, instead of ending the whole test run at once. Children get the default
    /// back (`POSIX_SPAWN_SETSIGDEF` below).
    private static let pipesWithoutSignal: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Starts `executable` with `arguments` in `directory` (else this one's), its standard input,
    /// output and error the descriptors given (else `/dev/null`); `onExit` hears its status once it
    /// ends. The descriptors stay the caller's to close.
    public init(
        _ executable: String, _ arguments: [String], in directory: String? = nil, standardInput: Int32? = nil,
        standardOutput: Int32? = nil, standardError: Int32? = nil, onExit: (@Sendable (Int32) -> Void)? = nil
    ) throws {
        _ = Self.pipesWithoutSignal
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, given) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            if let given {
                posix_spawn_file_actions_adddup2(&actions, given, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        guard Self.closeFrom(&actions, 3) == 0 else { throw ChildProcessError("posix_spawn cannot close descriptors") }
        if let directory, Self.changeDirectory(&actions, directory) != 0 {
            throw ChildProcessError("posix_spawn cannot change to \(directory)")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (as Process does), no signal blocked and none ignored: a thread of
        // Swift's task pool blocks most signals, and a child inherits its starter's mask (a station
        // started from one could not be stopped with SIGTERM).
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let failure = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard failure == 0 else {
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(failure)))")
        }
        processIdentifier = pid
        let waiter = Thread { [self] in
            var status: Int32 = 0
            while waitpid(processIdentifier, &status, 0) < 0 && errno == EINTR {}
            // The exit code, or the signal's number (as Foundation's terminationStatus gives it).
            let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
            ended.withLock { $0 = code }
            exited.signal()
            onExit?(code)
        }
        waiter.stackSize = 1 << 17
        waiter.start()
    }

    /// Whether it has not ended yet.
    public var isRunning: Bool { ended.withLock { $0 == nil } }

    /// Blocks until it has ended (at once if it has).
    public func waitUntilExit() {
        guard isRunning else { return }
        exited.wait()
        exited.signal()  // for any other waiter
    }

    /// Its exit status, or the signal that ended it; -1 while it runs.
    public var terminationStatus: Int32 { ended.withLock { $0 } ?? -1 }

    /// Sends SIGTERM.
    public func terminate() { kill(processIdentifier, SIGTERM) }

    // glibc has both since 2.34 and 2.29, but Swift's Glibc module does not declare them.
    private typealias FileActionInt = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias FileActionPath =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return -1 }
        return unsafeBitCast(symbol, to: FileActionInt.self)(&actions, lowest)
    }

    private static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, _ path: String) -> Int32 {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        else { return -1 }
        return unsafeBitCast(symbol, to: FileActionPath.self)(&actions, path)
    }
}

/// A child process that could not be started, and why.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
