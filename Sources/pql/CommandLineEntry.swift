import ArgumentParser
import Foundation
import PQL

/// Runs the root command and maps every outcome to PQL's exit statuses.
enum CommandLineEntry {
    static func run(arguments: RawArguments) -> Int32 {
        if let bad = arguments.invalidUTF8 {
            // Report a non-UTF-8 argument as the predicate error it would be.
            do {
                _ = try PredicateNode(utf8: bad)
            } catch {
                Output.error(error.rendered)
            }
            return 1
        }
        // ArgumentParser's own `help` knows only commands: `pql help language` is the language's page.
        if arguments.strings.count == 2 && arguments.strings[0] == "help" && arguments.strings[1].lowercased() == "language" {
            Output.write(LanguageSummary.text)
            return 0
        }
        // `pql help NAME` for a NAME that is no command would print the general help and succeed.
        if arguments.strings.count == 2 && arguments.strings[0] == "help" {
            let names = PQLCommand.configuration.subcommands.map { $0.configuration.commandName ?? "" } + ["help"]
            if !names.contains(arguments.strings[1]) {
                Output.error("error: no command '\(arguments.strings[1])'\nhint: pql help COMMAND for one of \(names.dropLast().joined(separator: ", ")), or pql help language")
                return 2
            }
        }
        do {
            var command = try PQLCommand.parseAsRoot(arguments.strings)
            try command.run()
            return 0
        } catch let error as UserFacingError {
            Output.error(error.text)
            return 1
        } catch {
            let code = PQLCommand.exitCode(for: error)
            let message = PQLCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Output.line(message) }
                return 0
            }
            if !message.isEmpty { Output.error(message) }
            // ArgumentParser reports usage mistakes as validation failures.
            return code == .validationFailure ? 2 : code.rawValue
        }
    }
}

/// The process arguments as bytes, so that invalid UTF-8 is reported, not silently replaced.
struct RawArguments {
    var strings: [String]
    var invalidUTF8: [UInt8]?

    static func read() -> RawArguments {
        var strings: [String] = []
        var invalid: [UInt8]? = nil
        for i in 1..<Int(CommandLine.argc) {
            guard let p = CommandLine.unsafeArgv[i] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: p, count: strlen(p))).map { UInt8(bitPattern: $0) }
            if let s = String(validating: bytes, as: UTF8.self) {
                strings.append(s)
            } else if invalid == nil {
                invalid = bytes
            }
        }
        return RawArguments(strings: strings, invalidUTF8: invalid)
    }
}

/// An error already worded for the terminal (a rendered predicate error, a bad JSON argument).
struct UserFacingError: Error {
    var text: String
}

enum Output {
    /// Writes results to standard output. A write that fails (a full disk, /dev/full, a
    /// closed descriptor) ends pql with status 1 and one line saying why: results that did not
    /// arrive must not look like success. A reader that went away (`| head`) ends pql by
    /// SIGPIPE first, quietly, as other tools do.
    static func write(_ text: String) {
        if let code = writeAll(STDOUT_FILENO, text) {
            if code == EPIPE {
                // SIGPIPE was ignored (SwiftNIO ignores it for its sockets, once pql talks to
                // PostgreSQL): end as it would have ended pql.
                signal(SIGPIPE, SIG_DFL)
                raise(SIGPIPE)
            }
            failedWriting(code)
        }
    }

    /// Writes all of `text` to a descriptor; the errno of a failed write, or nil.
    private static func writeAll(_ fd: Int32, _ text: String) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            bytes = bytes.dropFirst(n)
        }
        return nil
    }

    /// Ends pql after standard output failed, with the system's reason.
    static func failedWriting(_ code: Int32) -> Never {
        error("pql: cannot write to standard output: \(String(cString: strerror(code)))")
        exit(1)
    }

    /// Writes a value's text and a line break (pql's `print`: results never go through stdio's
    /// buffer, whose write errors would be lost).
    static func line(_ value: Any) {
        write("\(value)\n")
    }

    /// Writes a message to standard error. Messages quote the user's input (a predicate, a
    /// file name, an argument): its control characters show as symbols (`␛`, `␇`…), so input
    /// can never send escape sequences to the terminal through an error.
    static func error(_ text: String) {
        fflush(nil)
        let shown = TerminalText.visible(text)
        // Where standard error cannot be written either, there is no one left to tell.
        _ = writeAll(STDERR_FILENO, shown.hasSuffix("\n") ? shown : shown + "\n")
    }
}
