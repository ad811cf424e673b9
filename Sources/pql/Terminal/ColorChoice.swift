import ArgumentParser
import Foundation

/// `--color=auto|always|never`: whether output is styled with ANSI escape sequences. `auto`
/// styles only output that goes to a terminal, and never when `NO_COLOR` is set to anything
/// (https://no-color.org) or `TERM` is `dumb`; the flag, given explicitly, wins over `NO_COLOR`.
enum ColorChoice: String, CaseIterable, ExpressibleByArgument {
    case auto, always, never

    /// Whether output written to file descriptor `fd` is styled.
    func isEnabled(for fd: Int32 = 1, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return isatty(fd) == 1
        }
    }
}
