import Foundation
import Testing

/// Key-path lists with a comma too many are refused; settings commands alone show the setting.
@Suite(.serialized) struct ReplSettingsTests {
    @Test func aTrailingCommaIsAnError() throws {
        let r = try PQLProcess.run(["-c", ".columns carrier,", "-c", ".distinct dest,", "-c", ".distinct dest,, origin", "-c", ".columns"],
                                   environment: DemoCache.environment)
        #expect(r.status == 1)
        #expect(r.stderr.contains("error: a key path is missing after the last comma\nhint: leave the comma out, or name another key path: .columns carrier, airline.name\n"),
                "\(r.stderr)")
        #expect(r.stderr.contains("error: a key path is missing after the last comma\nhint: leave the comma out, or name another key path: .distinct origin, dest where …\n"),
                "\(r.stderr)")
        #expect(r.stderr.contains("error: a key path is missing between two commas"), "\(r.stderr)")
        #expect(r.stdout.hasPrefix("year, month, day"), "the columns stay as they were: \(r.stdout)")
    }

    @Test func settingsAloneShowTheSetting() throws {
        let r = try PQLProcess.run(["-c", ".format", "-c", ".headers", "-c", ".timer", "-c", ".format box", "-c", ".headers off", "-c", ".timer on",
                                    "-c", ".format", "-c", ".headers", "-c", ".timer"], environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "format table\nheaders on\ntimer off\nformat box\nheaders off\ntimer on\n", "\(r.stdout)")
        let help = try PQLProcess.run(["-c", ".help format", "-c", ".help timer"], environment: DemoCache.environment)
        #expect(help.stdout.contains(".format [table|box|csv|tsv|json|jsonl|markdown]\n  how rows are printed; alone: the format"), "\(help.stdout)")
        #expect(help.stdout.contains(".timer [on|off]\n"), "\(help.stdout)")
    }
}
