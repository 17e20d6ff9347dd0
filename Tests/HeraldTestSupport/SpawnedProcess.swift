import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, with the part of `Process`'s API the tests use.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3) over-reads a buffer while it scans
/// `/proc/self/fd` and crashes now and then in suites that start many children
/// (swift-corelibs-foundation PR #5472). Tests start servers and tools through this instead.
public final class SpawnedProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    public var environment: [String: String]?
    /// A `FileHandle` or a `Pipe` (its writing end for output, reading end for input).
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// Called once, on a background thread, when the child has exited.
    public var terminationHandler: (@Sendable (SpawnedProcess) -> Void)?

    private let state = Mutex<(pid: pid_t, status: Int32?)>((0, nil))

    public init() {}

    public var processIdentifier: Int32 { state.withLock { $0.pid } }
    public var isRunning: Bool { state.withLock { $0.pid != 0 && $0.status == nil } }
    /// The exit code, or the number of the signal that ended it.
    public var terminationStatus: Int32 { state.withLock { $0.status ?? 0 } }

    public func run() throws {
        guard let path = executableURL?.path else { throw SpawnError("no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream, reading) in [(Int32(0), standardInput, true), (1, standardOutput, false), (2, standardError, false)] {
            if let source = Self.descriptor(stream, reading: reading) {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            }
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let variables = environment ?? ProcessInfo.processInfo.environment
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // Like Process: the child starts with no blocked signals and default handlers, whatever
        // the test runner's threads had.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError("posix_spawn \(path): \(String(cString: strerror(result)))") }
        let child = pid
        state.withLock { $0.pid = child }
        // The child has its copies; the parent's ends must close so readers see end-of-file.
        (standardOutput as? Pipe)?.fileHandleForWriting.closeFile()
        (standardError as? Pipe)?.fileHandleForWriting.closeFile()
        let thread = Thread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let low = status & 0x7f
            let code = low == 0 ? (status >> 8) & 0xff : low
            state.withLock { $0.status = code }
            terminationHandler?(self)
        }
        thread.start()
    }

    public func waitUntilExit() {
        while isRunning { usleep(5_000) }
    }

    private static func descriptor(_ stream: Any?, reading: Bool) -> Int32? {
        if let handle = stream as? FileHandle { return handle.fileDescriptor }
        if let pipe = stream as? Pipe {
            return reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        }
        return nil
    }
}

public struct SpawnError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
