// Plain-function wrappers around libedit for Swift, which cannot call the
// variadic el_set, el_get and history.
#ifndef CLINEEDIT_H
#define CLINEEDIT_H

#include <stdio.h>

typedef struct pql_editor pql_editor;

/// How a read ended.
typedef enum {
    PQL_READ_LINE = 0,        ///< a line was entered; the text excludes the newline
    PQL_READ_INTERRUPTED = 1, ///< a signal (Ctrl-C) interrupted the read; the line is discarded, "^C\n" shown
    PQL_READ_END = 2,         ///< end of input (Ctrl-D on an empty line) or a terminal error; "\n" shown
} pql_read_status;

/// What the completion callback asks libedit to do afterwards.
typedef enum {
    PQL_COMPLETE_REFRESH = 0,   ///< the line changed: redraw it
    PQL_COMPLETE_REDISPLAY = 1, ///< output was printed below: redraw prompt and line
    PQL_COMPLETE_BEEP = 2,      ///< nothing to do: ring the bell
} pql_complete_action;

/// Called on TAB with the line as UTF-8 and the cursor as a byte offset into it.
typedef pql_complete_action (*pql_completer)(void *context, pql_editor *editor,
                                             const char *line, int length, int cursor);

/// Sets the character-type locale from the environment (falling back to C.UTF-8)
/// and opens an editor on the streams (NULL: the standard one); NULL if libedit cannot.
pql_editor *pql_editor_open(const char *program, FILE *in, FILE *out, FILE *err);
void pql_editor_close(pql_editor *editor);

/// Reads one line. On PQL_READ_LINE *line points at text owned by the editor
/// (valid until the next read) and *length is its length in bytes.
pql_read_status pql_editor_read(pql_editor *editor, const char *prompt,
                                const char **line, int *length);

int pql_editor_history_load(pql_editor *editor, const char *path);
int pql_editor_history_save(pql_editor *editor, const char *path);
void pql_editor_history_add(pql_editor *editor, const char *line);
void pql_editor_history_set_size(pql_editor *editor, int size);
int pql_editor_history_count(pql_editor *editor);

/// Binds TAB to the callback; NULL unbinds it (TAB then inserts itself).
void pql_editor_set_completer(pql_editor *editor, pql_completer completer, void *context);

/// From inside the completer: moves the cursor by `move` characters (negative:
/// left), deletes `remove` characters before it and inserts text there. Counts
/// are in Unicode scalars, libedit's characters.
int pql_editor_replace(pql_editor *editor, int move, int remove, const char *text);
/// From inside the completer: moves below the line being edited and prints text
/// (which should end with a newline); return PQL_COMPLETE_REDISPLAY afterwards.
void pql_editor_print_below(pql_editor *editor, const char *text);
/// The terminal's width in columns as libedit knows it.
int pql_editor_columns(pql_editor *editor);

/// The Ctrl-C flag of the REPL: raised from the SIGINT handler, read and cleared from any
/// thread. A C11 atomic, because a plain variable shared by the handler, the main thread and the
/// watcher thread that interrupts SQLite is a data race (the thread sanitizer reported it).
/// Lock-free, so safe to call from a signal handler.
void pql_interrupt_raise(void);
void pql_interrupt_clear(void);
int pql_interrupt_is_raised(void);

/// Between two reads of a line, while an entry runs and its result prints (through a pager too,
/// which sets its own modes and gives these back): the terminal stays
/// out of canonical mode and does not echo, everything else (Ctrl-C, output) as the user has it.
/// Keys typed meanwhile then wait for the next read as they were typed and are shown once, by the
/// editor: in cooked mode the terminal echoed them a second time, and a Ctrl-D became an
/// end-of-file mark that reached libedit as a NUL byte, so it was lost. pql_editor_read calls it
/// after each line; the terminal's own settings come back at exit, on a fatal signal, and with
/// pql_terminal_release.
void pql_terminal_hold(int fd);
/// Gives the terminal its own settings back (the session is over); 1 if it was held.
int pql_terminal_release(void);
/// Keeps the terminal's settings as they are now (cooked, before the first read) and installs the
/// handlers that give them back when a signal ends pql: a kill before the first line was entered
/// left libedit's raw mode behind (no ICANON, no ECHO). pql_editor_open calls it.
void pql_terminal_remember(int fd);

/// SIGTERM and SIGHUP from now on are as Ctrl-C (the interrupt flag is raised: the running
/// statement stops, on a PostgreSQL server too, and so does the read of a line), and pql_ending_signal
/// says which came, for pql to leave by its own path with the terminal given back; a second one
/// ends pql at once (the terminal given back too). Without this, they end pql at once, the
/// terminal given back. Ctrl-\ (SIGQUIT) ends pql by its default action once the terminal is
/// given back, without the Swift runtime's crash report.
void pql_end_on_signals(void);
/// The SIGTERM or SIGHUP that came since pql_end_on_signals, or 0.
int pql_ending_signal(void);

#endif
