import Foundation
import PQLTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program running on a pseudo-terminal, for testing what a user at a
/// terminal would see and do.
///
/// A pipe is not enough: line editing, prompts and Ctrl-C only happen when
/// standard input is a terminal, and Ctrl-C reaches a program only as SIGINT
/// sent by the terminal's line discipline to the foreground process group. So
/// the child gets a new session whose controlling terminal is the pty's slave,
/// and everything it writes is fed to a ``ScreenModel``.
///
/// Wait for the program's prompt before typing: keys typed while the terminal
/// is still in cooked mode are echoed by the kernel and then again by a line
/// editor.
final class PseudoTerminal: @unchecked Sendable {
    /// Bytes a key sends on an xterm.
    struct Key: Sendable {
        let bytes: String
        static let enter = Key(bytes: "\r")
        static let tab = Key(bytes: "\t")
        static let ctrlC = Key(bytes: "\u{03}")
        static let ctrlD = Key(bytes: "\u{04}")
        static let up = Key(bytes: "\u{1B}[A")
        static let down = Key(bytes: "\u{1B}[B")
        static let right = Key(bytes: "\u{1B}[C")
        static let left = Key(bytes: "\u{1B}[D")
        static let backspace = Key(bytes: "\u{7F}")
    }

    struct SpawnError: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    let pid: pid_t
    private let master: Int32
    /// Held open so that reading the master never fails before the child has
    /// opened its end, and output stays readable after the child is gone.
    private let slave: Int32
    private let state: State
    private var exitStatus: Int32?

    /// The terminal's local modes now (`ICANON`, `ECHO`, …), as the program left them.
    var localModes: tcflag_t? {
        var settings = termios()
        return tcgetattr(slave, &settings) == 0 ? settings.c_lflag : nil
    }

    /// Starts the executable on a new terminal of the given size.
    ///
    /// The child inherits this process's environment with `TERM=xterm` and
    /// `LANG=C.UTF-8` (and no `LC_ALL`, `COLUMNS` or `LINES`), then `environment`
    /// on top. Its signals are reset to their defaults, since a test runner may
    /// ignore SIGINT and a shell cannot trap a signal ignored on entry.
    init(executable: URL, arguments: [String] = [], environment: [String: String] = [:],
         columns: Int = 100, rows: Int = 40) throws {
        // Glibc's Swift module leaves out the X/Open pty functions; libc has them.
        master = PTY.openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw SpawnError(call: "posix_openpt", code: errno) }
        var buffer = [CChar](repeating: 0, count: 256)
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard PTY.grant(master) == 0, PTY.unlock(master) == 0, PTY.name(master, &buffer, buffer.count) == 0,
              ioctl(master, UInt(TIOCSWINSZ), &size) == 0
        else {
            let code = errno
            close(master)
            throw SpawnError(call: "pseudo-terminal setup", code: code)
        }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            let code = errno
            close(master)
            throw SpawnError(call: "open \(name)", code: code)
        }

        var env = ProcessInfo.processInfo.environment
        for key in ["LC_ALL", "COLUMNS", "LINES"] { env[key] = nil }
        env["TERM"] = "xterm"
        env["LANG"] = "C.UTF-8"
        env.merge(environment) { $1 }

        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        // After setsid, the first terminal the session leader opens becomes its
        // controlling terminal, with the child's group in the foreground.
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        // Nothing else of the test runner reaches the child: another test's pipes kept open by
        // this child would hold that test's reads (see ChildProcess).
        guard SpawnExtras.closeFrom(&actions, 3) == 0 else {
            close(master)
            close(slave)
            throw SpawnError(call: "posix_spawn_file_actions_addclosefrom_np", code: errno)
        }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(PTY.spawnSetsid | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let code = posix_spawn(&child, executable.path, &actions, &attributes, argv, envp)
        guard code == 0 else {
            close(master)
            close(slave)
            throw SpawnError(call: "posix_spawn \(executable.path)", code: code)
        }
        pid = child
        state = State(columns: columns, rows: rows)
        let (fd, state) = (master, state)
        let reader = Thread { PseudoTerminal.read(fd, into: state) }
        reader.name = "PseudoTerminal reader"
        reader.start()
    }

    deinit {
        kill()
        // Background jobs may outlive the program in its process group.
        sendSignal(-pid, SIGKILL)
        state.stop()
        close(slave)
    }

    // MARK: Typing

    /// Sends the text as if typed.
    func type(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Sends the keys one after the other.
    func press(_ keys: Key...) {
        for key in keys { type(key.bytes) }
    }

    // MARK: Looking

    /// Everything the program wrote, escape sequences and all.
    var output: String { state.locked { String(decoding: $0.raw, as: UTF8.self) } }

    /// The screen as it is now.
    var screen: ScreenModel { state.locked { $0.screen } }

    /// Waits until the screen shows the text; false after the timeout.
    ///
    /// Only the screen counts: text that scrolled away does not, and neither
    /// does text the program wrote and then erased. Blanks count as spaces, so
    /// a prompt with its trailing space ("pql> ") matches an empty input line.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 20) -> Bool {
        waitUntil(timeout: timeout) { screen in
            screen.text.contains(text) || screen.paddedLines.contains { $0.contains(text) }
        }
    }

    /// Waits until the condition holds for the screen; false after the timeout.
    @discardableResult
    func waitUntil(timeout: Double = 20, _ condition: (ScreenModel) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if condition(screen) { return true }
            usleep(20_000)
        } while Date() < deadline
        return condition(screen)
    }

    // MARK: The process

    /// The exit status, or 128 + the signal for a killed program as shells
    /// report it; nil if it is still running after the timeout.
    /// The default is generous for the whole suite under the thread sanitizer on 2 loaded cores.
    func waitForExit(timeout: Double = 120) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let status = reap(blocking: false) { return status }
            usleep(20_000)
        } while Date() < deadline
        return reap(blocking: false)
    }

    /// Kills the program and everything in its process group (a shell's
    /// background jobs would otherwise keep the terminal open).
    func kill() {
        guard exitStatus == nil else { return }
        sendSignal(-pid, SIGKILL)
        sendSignal(pid, SIGKILL)
        _ = reap(blocking: true)
    }

    private func reap(blocking: Bool) -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while result < 0 && errno == EINTR
        guard result == pid else { return nil }
        let signal = status & 0x7F
        exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        return exitStatus
    }

    // MARK: Reading

    /// libc's pseudo-terminal calls, which need _XOPEN_SOURCE and so are
    /// missing from the Glibc module.
    private enum PTY {
        nonisolated(unsafe) static let libc = dlopen(nil, RTLD_NOW)
        static func function<F>(_ name: String, _ type: F.Type) -> F {
            guard let symbol = dlsym(libc, name) else { fatalError("libc has no \(name)") }
            return unsafeBitCast(symbol, to: F.self)
        }
        static let openpt = function("posix_openpt", (@convention(c) (Int32) -> Int32).self)
        static let grant = function("grantpt", (@convention(c) (Int32) -> Int32).self)
        static let unlock = function("unlockpt", (@convention(c) (Int32) -> Int32).self)
        static let name = function("ptsname_r", (@convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32).self)
        #if canImport(Glibc)
        /// glibc's POSIX_SPAWN_SETSID (2.26 and later), a GNU extension the module hides.
        static let spawnSetsid: Int32 = 0x80
        #else
        static let spawnSetsid = Int32(POSIX_SPAWN_SETSID)
        #endif
    }

    /// What the reader thread shares with the tests.
    private final class State: @unchecked Sendable {
        struct Contents {
            var raw: [UInt8] = []
            var screen: ScreenModel
        }

        private let lock = NSLock()
        private var contents: Contents
        private var stopped = false

        init(columns: Int, rows: Int) {
            contents = Contents(screen: ScreenModel(columns: columns, rows: rows))
        }

        func locked<T>(_ body: (inout Contents) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&contents)
        }

        func stop() { lock.lock(); stopped = true; lock.unlock() }
        var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }
    }

    /// Copies output into the state until the owner goes away. Polls rather
    /// than blocks so that it notices: the owner keeps the slave open, so the
    /// master never reports the end. The thread owns the master descriptor and
    /// closes it, so the number is never reused while it still reads.
    private static func read(_ fd: Int32, into state: State) {
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !state.isStopped {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            #if canImport(Glibc)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            #else
            let count = buffer.withUnsafeMutableBytes { Darwin.read(fd, $0.baseAddress, $0.count) }
            #endif
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return }
            let bytes = Array(buffer[..<count])
            state.locked {
                $0.raw += bytes
                $0.screen.feed(bytes)
            }
        }
    }
}

/// libc's kill(2), out of reach inside `PseudoTerminal`, whose `kill()` hides it.
private func sendSignal(_ pid: pid_t, _ signal: Int32) {
    kill(pid, signal)
}
