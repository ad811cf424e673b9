import Foundation
import Testing

/// The pseudo-terminal harness itself, on ordinary programs, so that a failing
/// REPL test can be trusted to be about the REPL.
@Suite("PseudoTerminalHarness: screen model")
struct ScreenModelTests {
    @Test("carriage return overwrites, ESC[K erases to the end of the line")
    func carriageReturnAndErase() {
        var screen = ScreenModel(columns: 20, rows: 5)
        screen.feed("hello world\rjelly")
        #expect(screen.lines[0] == "jelly world")
        screen.feed("\u{1B}[K")
        #expect(screen.lines[0] == "jelly")
        screen.feed("\u{1B}[3D\u{1B}[1K")
        #expect(screen.lines[0] == "   ly")
        screen.feed("\u{1B}[2K")
        #expect(screen.text == "")
    }

    @Test("cursor movement and absolute positioning")
    func cursorMoves() {
        var screen = ScreenModel(columns: 20, rows: 5)
        screen.feed("abc\r\ndef\u{1B}[A\u{1B}[2CX")
        #expect(screen.lines[0] == "abc  X")
        screen.feed("\u{1B}[3;2HY\u{1B}[5GZ\u{1B}[H!")
        #expect(screen.lines == ["!bc  X", "def", " Y  Z", "", ""])
        #expect(screen.cursorRow == 0 && screen.cursorColumn == 1)
        screen.feed("\u{08}\u{08}\tT")
        #expect(screen.lines[0] == "!bc  X  T")
    }

    @Test("line feed keeps the column; output past the last row scrolls")
    func scrolling() {
        var screen = ScreenModel(columns: 10, rows: 3)
        screen.feed("one\ntwo")
        #expect(screen.lines == ["one", "   two", ""])
        screen.feed("\r\nthree\r\nfour")
        #expect(screen.lines == ["   two", "three", "four"])
        #expect(screen.scrollback == ["one"])
        #expect(screen.fullText == "one\n   two\nthree\nfour")
    }

    @Test("the last column wraps only when the next character comes")
    func autowrap() {
        var screen = ScreenModel(columns: 5, rows: 3)
        screen.feed("abcde")
        #expect(screen.cursorRow == 0 && screen.cursorColumn == 4)
        screen.feed("f")
        #expect(screen.lines == ["abcde", "f", ""])
        screen.feed("\r\n12345")
        #expect(screen.lines == ["abcde", "f", "12345"])
        screen.feed("\r\n")
        #expect(screen.lines == ["f", "12345", ""])
        #expect(screen.scrollback == ["abcde"])
    }

    @Test("insert and delete characters, insert mode, clear the screen")
    func editing() {
        var screen = ScreenModel(columns: 10, rows: 3)
        screen.feed("abcdef\r\u{1B}[2C\u{1B}[2P")
        #expect(screen.lines[0] == "abef")
        screen.feed("\u{1B}[1@X")
        #expect(screen.lines[0] == "abXef")
        screen.feed("\u{1B}[4hYZ\u{1B}[4lQ")
        #expect(screen.lines[0] == "abXYZQf")
        screen.feed("\r\n\nsecond\u{1B}[H\u{1B}[J")
        #expect(screen.text == "")
    }

    @Test("UTF-8 and escape sequences split across reads; wide characters; colours ignored")
    func splitInput() {
        var screen = ScreenModel(columns: 10, rows: 2)
        let bytes = Array("\u{1B}[1;31mé\u{1B}[0m日本\u{1B}]0;title\u{07}!".utf8)
        for byte in bytes { screen.feed([byte]) }
        #expect(screen.lines[0] == "é日本!")
        #expect(screen.cursorColumn == 6)
        screen.feed("\u{1B}[?2004h\u{1B}(B\u{1B}=ok")
        #expect(screen.lines[0] == "é日本!ok")
    }
}

@Suite("PseudoTerminalHarness: processes")
struct PseudoTerminalTests {
    let shell = URL(fileURLWithPath: "/bin/sh")

    @Test("an interactive shell runs what is typed")
    func interactiveShell() throws {
        let terminal = try PseudoTerminal(executable: shell, arguments: ["-i"],
                                          environment: ["PS1": "prompt$ ", "ENV": "/dev/null"])
        #expect(terminal.waitFor("prompt$"), "\(terminal.screen.text)")
        terminal.type("echo hi")
        terminal.press(.enter)
        #expect(terminal.waitUntil { $0.lines.contains("hi") }, "\(terminal.screen.text)")
        terminal.type("exit 4")
        terminal.press(.enter)
        #expect(terminal.waitForExit() == 4)
    }

    @Test("the child sees the terminal size, TERM and LANG")
    func terminalSize() throws {
        let terminal = try PseudoTerminal(executable: shell,
                                          arguments: ["-c", "echo size=$(stty size) term=$TERM lang=$LANG"],
                                          columns: 72, rows: 21)
        #expect(terminal.waitFor("size=21 72 term=xterm lang=C.UTF-8"), "\(terminal.screen.text)")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("Ctrl-C sends SIGINT to the program")
    func interrupt() throws {
        let terminal = try PseudoTerminal(
            executable: shell,
            arguments: ["-c", "trap 'echo caught; kill $!; exit 3' INT; echo ready; sleep 60 & wait"])
        #expect(terminal.waitFor("ready"), "\(terminal.screen.text)")
        terminal.press(.ctrlC)
        #expect(terminal.waitFor("caught"), "\(terminal.screen.text)")
        #expect(terminal.waitForExit() == 3)
    }

    @Test("cooked mode: the kernel echoes, Ctrl-D ends input")
    func catEchoes() throws {
        let terminal = try PseudoTerminal(executable: URL(fileURLWithPath: "/bin/cat"))
        terminal.type("héllo")
        terminal.press(.enter)
        #expect(terminal.waitUntil { $0.lines.prefix(2) == ["héllo", "héllo"] }, "\(terminal.screen.text)")
        terminal.press(.ctrlD)
        #expect(terminal.waitForExit() == 0)
    }

    @Test("kill ends a program that would not stop")
    func killing() throws {
        let terminal = try PseudoTerminal(executable: shell, arguments: ["-c", "trap '' INT; echo up; sleep 60"])
        #expect(terminal.waitFor("up"))
        terminal.kill()
        #expect(terminal.waitForExit(timeout: 1) == 128 + SIGKILL)
    }
}
