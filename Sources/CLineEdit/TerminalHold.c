// The terminal between two reads of a line, and the signals that end pql. See pql_terminal_hold
// and pql_end_on_signals in include/CLineEdit.h.
#define _GNU_SOURCE
#include "CLineEdit.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>

// The terminal's own (cooked) settings, as they were before the first read or as libedit
// restored them after the last one; -1: none known, nothing to restore. Written on the main
// thread only, read by the handlers below.
static struct termios cooked;
static volatile sig_atomic_t cooked_fd = -1;

// Signals that end the process, and the actions they had before ours. SIGTERM and SIGHUP (a
// closed terminal, kill -HUP) first, then the faults.
static const int ending_signals[] = { SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE };
#define ENDING_COUNT (sizeof ending_signals / sizeof ending_signals[0])
static struct sigaction previous[ENDING_COUNT];

// pql_end_on_signals: SIGTERM and SIGHUP stop the work as Ctrl-C does, then pql ends.
static volatile sig_atomic_t interrupting;
// The first SIGTERM or SIGHUP that came while interrupting; 0: none.
static volatile sig_atomic_t received;

static void restore(void) {
    int fd = cooked_fd;
    if (fd >= 0) tcsetattr(fd, TCSANOW, &cooked); // async-signal-safe
}

// Signals sent to the process, not raised by an instruction that faulted.
static int is_asynchronous(int sig) {
    return sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT || sig == SIGABRT;
}

// SIGTERM or SIGHUP while interrupting, the first time: raise the interrupt flag, which stops the
// running statement (cancelled on a PostgreSQL server) and the read of a line; pql then leaves
// by its own path, giving the terminal back. Any other time: give the user's terminal back as it
// was, then let the signal do what it did before. A kill, a hangup or Ctrl-\ (SIGQUIT) ends pql
// by the default action, without the Swift runtime's crash report (which waited 30 s at a
// terminal, "Press space to interact"); a fault goes to the runtime's backtrace as before, and
// happens again when this returns, while a signal sent by kill or abort is raised again.
static void on_ending_signal(int sig, siginfo_t *info, void *context) {
    (void)context;
    if (interrupting && received == 0 && (sig == SIGTERM || sig == SIGHUP)) {
        received = sig;
        pql_interrupt_raise();
        return;
    }
    restore();
    for (size_t i = 0; i < ENDING_COUNT; i++) {
        if (ending_signals[i] != sig) continue;
        if (sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) {
            struct sigaction fallback;
            memset(&fallback, 0, sizeof fallback);
            fallback.sa_handler = SIG_DFL;
            sigemptyset(&fallback.sa_mask);
            sigaction(sig, &fallback, NULL);
        } else {
            sigaction(sig, &previous[i], NULL);
        }
    }
    if (is_asynchronous(sig) || info == NULL || info->si_code <= 0) raise(sig);
}

static void install_restorers(void) {
    static int installed;
    if (installed) return;
    installed = 1;
    atexit(restore);
    for (size_t i = 0; i < ENDING_COUNT; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_ending_signal;
        // On the alternate stack when there is one: a stack overflow arrives as SIGSEGV.
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(ending_signals[i], &action, &previous[i]);
    }
}

void pql_terminal_remember(int fd) {
    struct termios now;
    if (tcgetattr(fd, &now) != 0 || !(now.c_lflag & ICANON)) return;
    cooked = now;
    cooked_fd = fd;
    install_restorers();
}

void pql_terminal_hold(int fd) {
    struct termios now;
    // Only from the terminal's own cooked mode (libedit gives it back after every read).
    if (tcgetattr(fd, &now) != 0 || !(now.c_lflag & ICANON)) return;
    cooked = now;
    cooked_fd = fd;
    install_restorers();
    struct termios held = now;
    held.c_lflag &= ~(ICANON | ECHO);
    held.c_cc[VMIN] = 1;
    held.c_cc[VTIME] = 0;
    tcsetattr(fd, TCSANOW, &held);
}

int pql_terminal_release(void) {
    struct termios now;
    int fd = cooked_fd;
    if (fd < 0 || tcgetattr(fd, &now) != 0 || (now.c_lflag & ICANON)) return 0;
    restore();
    return 1;
}

void pql_end_on_signals(void) {
    install_restorers();
    interrupting = 1;
    // A parent may start pql with them blocked (test runners' threads do): they would wait,
    // pending, while the statement ran on.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int pql_ending_signal(void) { return received; }
