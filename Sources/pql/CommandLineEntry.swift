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
            FileHandle.standardOutput.write(Data(LanguageSummary.text.utf8))
            return 0
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
                if !message.isEmpty { print(message) }
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
    /// Writes a message to standard error. Messages quote the user's input (a predicate, a
    /// file name, an argument): its control characters show as symbols (`␛`, `␇`…), so input
    /// can never send escape sequences to the terminal through an error.
    static func error(_ text: String) {
        fflush(nil)
        let shown = TerminalText.visible(text)
        FileHandle.standardError.write(Data((shown.hasSuffix("\n") ? shown : shown + "\n").utf8))
    }
}
