// libedit behind plain functions. See include/CLineEdit.h.
#define _GNU_SOURCE
#include "CLineEdit.h"

#include <errno.h>
#include <histedit.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>
#include <wchar.h>

struct pql_editor {
    EditLine *el;
    History *history;
    FILE *out;
    int in_fd;
    char *prompt;
    size_t length; // of the line last returned, which this strips of its newline
    pql_completer completer;
    void *context;
    int interrupted; // a Ctrl-C ended the read (read_char saw it)
};

// Whether the read of a line must end: a Ctrl-C, or a SIGTERM or SIGHUP (pql_end_on_signals).
static int read_must_end(void) {
    return pql_interrupt_is_raised() || pql_ending_signal() != 0;
}

// Waits until the terminal has input or a Ctrl-C (or a SIGTERM or SIGHUP) comes, with no window
// in between.
//
// libedit's own reader blocks in read(2) and counts on SIGINT to break it with EINTR. A Ctrl-C
// that lands while libedit is busy between two reads (redrawing after a completion, say) sets the
// flag and breaks nothing, so the next read would wait on as if it had never come. Here the
// signals are blocked while the flags are tested and unblocked only inside ppoll, atomically: a
// signal that came before is seen in a flag, one that comes after wakes ppoll.
static int wait_for_input(int fd) {
    sigset_t block, saved;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    int result;
    if (read_must_end()) {
        result = -1;
        errno = EINTR;
    } else {
        sigset_t waiting = saved;
        sigdelset(&waiting, SIGINT);
        sigdelset(&waiting, SIGTERM);
        sigdelset(&waiting, SIGHUP);
#if defined(__APPLE__)
        fd_set readable;
        FD_ZERO(&readable);
        FD_SET(fd, &readable);
        result = pselect(fd + 1, &readable, NULL, NULL, NULL, &waiting);
#else
        struct pollfd poll_fd = { .fd = fd, .events = POLLIN };
        result = ppoll(&poll_fd, 1, NULL, &waiting);
#endif
    }
    int error = errno;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    errno = error;
    return result;
}

// libedit's character reader (EL_GETCFN): one character from the terminal, decoded from the
// locale's multibyte encoding; 1 for a character, 0 at end of input, -1 with errno on error or
// EINTR on Ctrl-C. Invalid bytes are dropped as libedit's own reader drops them.
static int read_char(EditLine *el, wchar_t *character) {
    pql_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    char bytes[MB_LEN_MAX];
    size_t count = 0;
    *character = L'\0';
    for (;;) {
        if (wait_for_input(editor->in_fd) < 0) {
            if (errno == EINTR && !read_must_end()) continue; // another signal
            if (errno == EINTR) editor->interrupted = 1;
            return -1;
        }
        ssize_t got = read(editor->in_fd, bytes + count, 1);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return -1;
        }
        if (got == 0) return 0;
        count += 1;
        for (;;) {
            mbstate_t state;
            memset(&state, 0, sizeof state);
            size_t used = mbrtowc(character, bytes, count, &state);
            if (used == (size_t)-2) {
                // Read the rest of the character, unless it is already too long to be one.
                if (count == sizeof bytes) count = 0;
                break;
            }
            if (used == (size_t)-1) {
                // An invalid sequence: drop it, but the last byte may begin the next character.
                if (count > 1) {
                    bytes[0] = bytes[count - 1];
                    count = 1;
                    continue;
                }
                count = 0;
                break;
            }
            return 1; // used == 0 is a NUL character, one byte read
        }
    }
}

static char *prompt_function(EditLine *el) {
    pql_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    return editor && editor->prompt ? editor->prompt : "";
}

// libedit decodes keystrokes with the C library's multibyte functions, so
// without a UTF-8 LC_CTYPE every non-ASCII letter would arrive as garbage.
static void ensure_utf8_locale(void) {
    setlocale(LC_CTYPE, "");
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL || strcmp(codeset, "UTF-8") != 0) {
        if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) setlocale(LC_CTYPE, "C.utf8");
    }
}

pql_editor *pql_editor_open(const char *program, FILE *in, FILE *out, FILE *err) {
    ensure_utf8_locale();
    if (in == NULL) in = stdin;
    if (out == NULL) out = stdout;
    if (err == NULL) err = stderr;
    pql_editor *editor = calloc(1, sizeof *editor);
    if (editor == NULL) return NULL;
    editor->out = out;
    editor->in_fd = fileno(in);
    editor->el = el_init(program, in, out, err);
    editor->history = history_init();
    if (editor->el == NULL || editor->history == NULL) {
        pql_editor_close(editor);
        return NULL;
    }
    HistEvent event;
    history(editor->history, &event, H_SETSIZE, 1000);
    history(editor->history, &event, H_SETUNIQUE, 1);
    el_set(editor->el, EL_CLIENTDATA, editor);
    el_set(editor->el, EL_EDITOR, "emacs");
    // The program owns SIGINT: its handler raises the interrupt flag, and read_char
    // ends the read when it sees the flag or its wait is broken by the signal.
    el_set(editor->el, EL_SIGNAL, 0);
    el_set(editor->el, EL_GETCFN, read_char);
    el_set(editor->el, EL_PROMPT, prompt_function);
    el_set(editor->el, EL_HIST, history, editor->history);
    el_source(editor->el, NULL); // ~/.editrc, as every libedit program reads it
    // The terminal as the user has it, given back if a signal ends pql during the first read.
    pql_terminal_remember(editor->in_fd);
    return editor;
}

void pql_editor_close(pql_editor *editor) {
    if (editor == NULL) return;
    pql_terminal_release();
    if (editor->el) el_end(editor->el);
    if (editor->history) history_end(editor->history);
    free(editor->prompt);
    free(editor);
}

pql_read_status pql_editor_read(pql_editor *editor, const char *prompt,
                                const char **line, int *length) {
    free(editor->prompt);
    editor->prompt = strdup(prompt ? prompt : "");
    *line = NULL;
    *length = 0;
    int count = 0;
    // A Ctrl-C from before this read (one that stopped a query) is not meant for it.
    pql_interrupt_clear();
    editor->interrupted = 0;
    errno = 0;
    const char *text = el_gets(editor->el, &count);
    int error = errno;
    pql_terminal_hold(editor->in_fd);
    // A signal ends the read with errno EINTR (and count -1, though libedit
    // may also hand back the half-typed line without its newline).
    size_t n = text && count > 0 ? strlen(text) : 0;
    if (n == 0 || text[n - 1] != '\n') {
        // Not ended by Enter: only an interruption or end of input does that.
        // Echo is off while editing, so show that the line was dropped, and
        // leave the cursor on a fresh line for whatever comes next (libedit
        // itself has already shown ^D for an end of input).
        int interrupted = error == EINTR || editor->interrupted;
        // A SIGTERM or SIGHUP ends pql: no ^C for a key nobody pressed.
        fputs(interrupted && pql_ending_signal() == 0 ? "^C\n" : "\n", editor->out);
        fflush(editor->out);
        return interrupted ? PQL_READ_INTERRUPTED : PQL_READ_END;
    }
    *line = text;
    *length = (int)(n - 1);
    return PQL_READ_LINE;
}

int pql_editor_history_load(pql_editor *editor, const char *path) {
    HistEvent event;
    return history(editor->history, &event, H_LOAD, path);
}

int pql_editor_history_save(pql_editor *editor, const char *path) {
    HistEvent event;
    return history(editor->history, &event, H_SAVE, path);
}

void pql_editor_history_add(pql_editor *editor, const char *line) {
    HistEvent event;
    history(editor->history, &event, H_ENTER, line);
}

void pql_editor_history_set_size(pql_editor *editor, int size) {
    HistEvent event;
    history(editor->history, &event, H_SETSIZE, size);
}

int pql_editor_history_count(pql_editor *editor) {
    HistEvent event;
    return history(editor->history, &event, H_GETSIZE) == 0 ? event.num : 0;
}

static unsigned char complete_function(EditLine *el, int key) {
    (void)key;
    pql_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    if (editor == NULL || editor->completer == NULL) return CC_ERROR;
    const LineInfo *info = el_line(el);
    int length = (int)(info->lastchar - info->buffer);
    int cursor = (int)(info->cursor - info->buffer);
    // info->buffer is not NUL-terminated; give the callback its own copy.
    char *copy = strndup(info->buffer, (size_t)length);
    if (copy == NULL) return CC_ERROR;
    pql_complete_action action = editor->completer(editor->context, editor, copy, length, cursor);
    free(copy);
    // A Ctrl-C while the completer ran is seen by read_char before it waits for the next key.
    switch (action) {
    case PQL_COMPLETE_REFRESH: return CC_REFRESH;
    case PQL_COMPLETE_REDISPLAY: return CC_REDISPLAY;
    default: return CC_REFRESH_BEEP;
    }
}

void pql_editor_set_completer(pql_editor *editor, pql_completer completer, void *context) {
    editor->completer = completer;
    editor->context = context;
    if (completer) {
        el_set(editor->el, EL_ADDFN, "pql-complete", "Complete the word before the cursor", complete_function);
        el_set(editor->el, EL_BIND, "^I", "pql-complete", NULL);
    } else {
        el_set(editor->el, EL_BIND, "^I", "ed-insert", NULL);
    }
}

int pql_editor_replace(pql_editor *editor, int move, int remove, const char *text) {
    if (move != 0) el_cursor(editor->el, move);
    if (remove > 0) el_deletestr(editor->el, remove);
    return text && *text ? el_insertstr(editor->el, text) : 0;
}

int pql_editor_columns(pql_editor *editor) {
    int columns = 0;
    if (el_get(editor->el, EL_GETTC, "co", &columns, NULL) != 0 || columns <= 0) columns = 80;
    return columns;
}

// Columns the UTF-8 text takes on screen.
static int display_width(const char *text, size_t length) {
    mbstate_t state;
    memset(&state, 0, sizeof state);
    int width = 0;
    size_t i = 0;
    while (i < length) {
        wchar_t c;
        size_t n = mbrtowc(&c, text + i, length - i, &state);
        if (n == (size_t)-1 || n == (size_t)-2) { memset(&state, 0, sizeof state); n = 1; c = L'?'; }
        if (n == 0) n = 1;
        int w = wcwidth(c);
        width += w < 0 ? 2 : w; // libedit shows control characters as ^X
        i += n;
    }
    return width;
}

void pql_editor_print_below(pql_editor *editor, const char *text) {
    // A long line wraps over several rows and the cursor may sit on any of
    // them: move past the last one so the list overwrites nothing.
    const LineInfo *info = el_line(editor->el);
    int columns = pql_editor_columns(editor);
    int prompt = display_width(editor->prompt, strlen(editor->prompt));
    int before = display_width(info->buffer, (size_t)(info->cursor - info->buffer));
    int all = display_width(info->buffer, (size_t)(info->lastchar - info->buffer));
    int row = (prompt + before) / columns, last = (prompt + all) / columns;
    for (int i = row; i <= last; i++) fputc('\n', editor->out);
    fputs(text, editor->out);
    fflush(editor->out);
}

static atomic_int pql_interrupt_flag;

void pql_interrupt_raise(void) { atomic_store(&pql_interrupt_flag, 1); }
void pql_interrupt_clear(void) { atomic_store(&pql_interrupt_flag, 0); }
int pql_interrupt_is_raised(void) { return atomic_load(&pql_interrupt_flag); }
