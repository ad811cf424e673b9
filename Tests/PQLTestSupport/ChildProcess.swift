import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program the tests run (`pql`, a shell line, a script) to its end, every wait bounded.
///
/// Not Foundation's `Process`: on Linux it learns that a child ended from a socket the child
/// inherits, and a child spawned meanwhile by another test (the tests run side by side) may
/// inherit that socket, or the pipes of another test's child, and keep them open. The first
/// child's `waitUntilExit()` or `readDataToEndOfFile()` then waited for a process that had
/// exited (a zombie), holding one of the two threads of the cooperative pool: the suite hung
/// under load. Here the pipes are close-on-exec, the child closes every descriptor above 2
/// before it runs, the exit is read with `waitpid` on the child's own pid, and a child that
/// outlives `timeout` is killed with its process group, which fails the test instead of
/// hanging the run.
///
/// ```swift
/// let r = try ChildProcess.run("/bin/sh", ["-c", "echo hi; exit 3"])
/// print(r.status, r.stdoutText)   // 3 hi
/// ```
package struct ChildProcess: Sendable {
    /// Where standard output or standard error goes.
    package enum Output: Sendable {
        /// Collected into the result.
        case pipe
        /// Discarded (`/dev/null`).
        case null
        /// Written to the file at this path (created or truncated; `/dev/full` too).
        case file(String)
        /// Standard error only: to wherever standard output goes.
        case standardOutput
    }

    /// How a run ended.
    package struct Result: Sendable {
        /// The exit status, or 128 + the signal's number when a signal ended it.
        package var status: Int32
        /// The signal that ended the child, if one did.
        package var signal: Int32?
        package var stdout: Data
        package var stderr: Data
        /// The peak resident memory (KiB, `VmHWM`) seen while it ran, when asked for.
        package var peakMemoryKiB: Int

        package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        package var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// The child outlived its time and was killed, or could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Runs `executable` with `arguments` and returns once it has exited and its output is read.
    ///
    /// - `stdin`: written to the child's standard input, which is then closed; nil is `/dev/null`.
    /// - `environment`: the whole environment (nil: this process's).
    /// - `measuringMemory`: reads the child's `VmHWM` from /proc every few milliseconds.
    /// - `whileRunning`: called with the pid every `interval` until the child exits (a test
    ///   that kills it at the right moment).
    /// - `timeout`: the child (and its process group) is killed after this long, and `Failure`
    ///   thrown, naming the command.
    package static func run(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                            directory: String? = nil, stdin: Data? = nil, stdout: Output = .pipe, stderr: Output = .pipe,
                            measuringMemory: Bool = false, timeout: Duration = .seconds(600),
                            interval: Duration = .milliseconds(2), whileRunning: ((pid_t) -> Void)? = nil) throws -> Result {
        try start(executable, arguments, environment: environment, directory: directory, stdin: stdin, stdout: stdout, stderr: stderr,
                  timeout: timeout).finish(measuringMemory: measuringMemory, interval: interval, whileRunning: whileRunning)
    }

    /// Starts the child and returns at once: the caller may signal it (``Running/signal(_:)``)
    /// before it reads its output and waits (``Running/finish(measuringMemory:interval:whileRunning:)``).
    /// Nothing reads its pipes until then (a child that prints much waits for it). `timeout`
    /// counts from now.
    package static func start(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                              directory: String? = nil, stdin: Data? = nil, stdout: Output = .pipe, stderr: Output = .pipe,
                              timeout: Duration = .seconds(600)) throws -> Running {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        var ours: [Int32] = []       // the parent's ends, closed at the end
        var theirs: [Int32] = []     // the child's ends, closed once it runs
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
            (ours + theirs).forEach { close($0) }
        }
        func pipeEnds() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard SpawnExtras.pipeClosedOnExec(&fds) == 0 else { throw Failure(description: "pipe2: \(String(cString: strerror(errno)))") }
            return (fds[0], fds[1])
        }
        // Standard input.
        var input: Int32 = -1
        if stdin != nil {
            let p = try pipeEnds()
            input = p.write
            ours.append(p.write)
            theirs.append(p.read)
            posix_spawn_file_actions_adddup2(&actions, p.read, 0)
            _ = fcntl(p.write, F_SETFL, fcntl(p.write, F_GETFL) | O_NONBLOCK)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        // Standard output and error.
        var readers: [(fd: Int32, isError: Bool)] = []
        for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .pipe:
                let p = try pipeEnds()
                ours.append(p.read)
                theirs.append(p.write)
                readers.append((p.read, target == 2))
                posix_spawn_file_actions_adddup2(&actions, p.write, target)
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            }
        }
        // Nothing else of this process reaches the child: not another test's pipes, not
        // Foundation's sockets.
        guard SpawnExtras.closeFrom(&actions, 3) == 0 else { throw Failure(description: "posix_spawn_file_actions_addclosefrom_np failed") }
        if let directory {
            guard SpawnExtras.changeDirectory(&actions, directory) == 0 else { throw Failure(description: "posix_spawn_file_actions_addchdir_np failed") }
        }
        // Default signal handling, nothing blocked, and a process group of its own (killed whole on a timeout).
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let env = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))") }
        theirs.forEach { close($0) }
        theirs = []

        let running = Running(pid: pid, command: ([executable] + arguments).joined(separator: " "), deadline: ContinuousClock.now + timeout,
                              input: input, pending: stdin.map { Array($0)[...] } ?? [], readers: readers, timeout: timeout)
        // Handed over: the Running closes them.
        ours = []
        return running
    }


    /// A started child (``ChildProcess/start(_:_:environment:directory:stdin:stdout:stderr:timeout:)``).
    package final class Running {
        package let pid: pid_t
        let command: String
        let deadline: ContinuousClock.Instant
        let timeout: Duration
        private var input: Int32
        private var pending: ArraySlice<UInt8>
        private var open: [(fd: Int32, isError: Bool)]
        private var status: Int32 = 0
        private var reaped = false

        init(pid: pid_t, command: String, deadline: ContinuousClock.Instant, input: Int32, pending: ArraySlice<UInt8>,
             readers: [(fd: Int32, isError: Bool)], timeout: Duration) {
            (self.pid, self.command, self.deadline, self.input, self.pending, self.open, self.timeout) = (pid, command, deadline, input, pending, readers, timeout)
        }

        /// Sends `signal` to the child (not its group).
        package func signal(_ signal: Int32) { if !reaped { kill(pid, signal) } }

        private func closeInput() {
            if input >= 0 { close(input) }
            input = -1
        }

        private func killAndReap() {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }

        /// Reads the child's output to its end and waits for it to exit (see ``ChildProcess/run(_:_:environment:directory:stdin:stdout:stderr:measuringMemory:timeout:interval:whileRunning:)``).
        package func finish(measuringMemory: Bool = false, interval: Duration = .milliseconds(2),
                            whileRunning: ((pid_t) -> Void)? = nil) throws -> Result {
            if input >= 0 && pending.isEmpty { closeInput() }
            var out = Data(), err = Data()
            var peak = 0
            let polling = measuringMemory || whileRunning != nil
            let pause = useconds_t(clamping: max(1, interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000))
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if polling {
                    if measuringMemory { peak = max(peak, ChildProcess.peakMemory(of: pid)) }
                    whileRunning?(pid)
                }
                if open.isEmpty && input < 0 {
                    // Output read to its end: the child has closed it, and exits (or has).
                    let r = waitpid(pid, &status, WNOHANG)
                    if r == pid { reaped = true; break }
                    if r < 0 && errno != EINTR { throw Failure(description: "waitpid \(pid): \(String(cString: strerror(errno)))") }
                    if ContinuousClock.now >= deadline { break }
                    usleep(polling ? pause : 500)
                    continue
                }
                if ContinuousClock.now >= deadline { break }
                var fds = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                if input >= 0 { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
                let left = deadline - ContinuousClock.now
                let wait = polling ? 0 : Int32(clamping: min(left.components.seconds * 1000 + 1, 1000))
                let ready = poll(&fds, nfds_t(fds.count), wait)
                if ready < 0 && errno != EINTR { throw Failure(description: "poll: \(String(cString: strerror(errno)))") }
                guard ready > 0 else {
                    if polling { usleep(pause) }
                    continue
                }
                for p in fds where p.revents != 0 {
                    if p.fd == input {
                        let n = pending.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
                        if n > 0 { pending = pending.dropFirst(n) }
                        if (n < 0 && errno != EAGAIN && errno != EINTR) || pending.isEmpty || p.revents & Int16(POLLERR | POLLHUP) != 0 {
                            closeInput()
                        }
                        continue
                    }
                    let n = read(p.fd, &buffer, buffer.count)
                    if n > 0 {
                        if open.first(where: { $0.fd == p.fd })?.isError == true { err.append(contentsOf: buffer[0..<n]) } else { out.append(contentsOf: buffer[0..<n]) }
                    } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                        close(p.fd)
                        open.removeAll { $0.fd == p.fd }
                    }
                }
            }
            if measuringMemory { peak = max(peak, ChildProcess.peakMemory(of: pid)) }
            if !reaped {
                // Past its time: the whole group goes, and the test fails naming the command.
                killAndReap()
                throw Failure(description: "\(command) did not end within \(timeout) and was killed; its output so far: \(String(decoding: out.suffix(2000), as: UTF8.self)) \(String(decoding: err.suffix(2000), as: UTF8.self))")
            }
            let signalled = status & 0x7f
            if signalled != 0 && signalled != 0x7f {
                return Result(status: 128 + signalled, signal: signalled, stdout: out, stderr: err, peakMemoryKiB: peak)
            }
            return Result(status: (status >> 8) & 0xff, signal: nil, stdout: out, stderr: err, peakMemoryKiB: peak)
        }

        deinit {
            // Never finished (a test that threw first): the child goes, and nothing is left open.
            closeInput()
            open.forEach { close($0.fd) }
            if !reaped { killAndReap() }
        }
    }

    /// A running child's `VmHWM` in KiB (0 once it has gone).
    static func peakMemory(of pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kib
    }
}

/// glibc's functions that Swift's Glibc module leaves out (spawn file actions of glibc 2.29 and
/// 2.34, `pipe2`), found at run time.
package enum SpawnExtras {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func symbol<T>(_ name: String, as: T.Type) -> T? {
        guard let s = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(s, to: T.self)
    }

    /// Closes every descriptor from `lowest` up in the child; -1 when libc lacks the action.
    package static func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32 {
        guard let f = symbol("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self) else { return -1 }
        return f(actions, lowest)
    }

    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    /// A pipe whose two ends are close-on-exec from the start (`pipe2(O_CLOEXEC)`, which the
    /// module leaves out too): no child another thread spawns meanwhile inherits them.
    package static func pipeClosedOnExec(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
        guard let f = symbol("pipe2", as: Pipe2.self) else { return -1 }
        return f(fds, O_CLOEXEC)
    }

    /// The child's working directory; -1 when libc lacks the action.
    package static func changeDirectory(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> Int32 {
        guard let f = symbol("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self) else { return -1 }
        return path.withCString { f(actions, $0) }
    }
}
