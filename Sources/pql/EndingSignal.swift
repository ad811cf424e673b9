import ArgumentParser
import CLineEdit

/// SIGTERM and SIGHUP treated as Ctrl-C, then an exit: the running statement stops (cancelled
/// on a PostgreSQL server, where a killed pql left it running for minutes), the terminal gets
/// its settings back, and pql ends with 128 + the signal's number, as a shell reports a
/// process the signal ended (143 for SIGTERM, 129 for SIGHUP). A second one ends pql at once.
enum EndingSignal {
    /// From now on (see `pql_end_on_signals`).
    static func interruptFirst() { pql_end_on_signals() }

    /// The SIGTERM or SIGHUP that came, if one did.
    static var received: Int32? {
        let s = pql_ending_signal()
        return s == 0 ? nil : s
    }

    /// The exit status for `signal`.
    static func exit(_ signal: Int32) -> ExitCode { ExitCode(128 + signal) }
}
