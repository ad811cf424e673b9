import Foundation
import PQLTestSupport
import Testing

/// `scripts/watchdog`, which `scripts/test` runs the suite under: a command that goes silent is
/// stopped with the tests that never ended and its threads' stacks named; a command that ends
/// keeps its own exit status and output.
@Suite struct WatchdogScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/watchdog").path

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let r = try ChildProcess.run(script, arguments, stderr: .standardOutput)
        return (r.status, r.stdoutText)
    }

    @Test func aSilentRunIsStoppedNamingTheTestsStillRunning() throws {
        let (status, output) = try Self.run(["--silence", "2", "--", "sh", "-c", """
            echo '◇ Test stuck() started.'; echo '◇ Test quick() started.'; echo '✔ Test quick() passed after 0.1 seconds.'
            echo '◇ Test "p" started.'; echo '◇ Test case passing 1 argument x → 1 to "p" started.'
            echo '✔ Test "p" with 2 test cases passed after 0.2 seconds.'; exec sleep 60
            """])
        #expect(status == 124, "\(output)")
        #expect(output.contains("no output for 2 s"), "\(output)")
        #expect(output.contains("1 test(s) started and never ended:\n     stuck()"), "\(output)")
        #expect(!output.contains("     quick()"), "\(output)")
        // A parameterized test ends with its count of cases: it is not still running.
        #expect(!output.contains("     \"p\""), "\(output)")
        #expect(output.contains("sleep 60"), "\(output)")
    }

    @Test func aRunThatEndsKeepsItsStatusAndOutput() throws {
        let (status, output) = try Self.run(["--silence", "30", "--", "sh", "-c", "echo one; echo two >&2; exit 3"])
        #expect(status == 3)
        #expect(output == "one\ntwo\n")
    }
}
