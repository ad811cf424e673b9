// The terminal between two reads of a line. See pql_terminal_hold in include/CLineEdit.h.
#define _GNU_SOURCE
#include "CLineEdit.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>

// The terminal's own (cooked) settings, as libedit restored them after the last read; -1: none
// known, nothing to restore. Written on the main thread only, read by the handlers below.
static struct termios cooked;
static volatile sig_atomic_t cooked_fd = -1;

// Signals that end the process, and the actions they had before ours.
static const int ending_signals[] = { SIGTERM, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE };
static struct sigaction previous[sizeof ending_signals / sizeof ending_signals[0]];

static void restore(void) {
    int fd = cooked_fd;
    if (fd >= 0) tcsetattr(fd, TCSANOW, &cooked); // async-signal-safe
}

// Gives the user's terminal back as it was, then lets the signal do what it did before (the
// default action, or the Swift runtime's backtrace): a fault sent by the kernel happens again
// when this returns; one sent by kill or abort is raised again.
static void restore_then_resignal(int sig, siginfo_t *info, void *context) {
    (void)context;
    restore();
    for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++) {
        if (ending_signals[i] == sig) sigaction(sig, &previous[i], NULL);
    }
    if (info == NULL || info->si_code <= 0) raise(sig);
}

static void install_restorers(void) {
    static int installed;
    if (installed) return;
    installed = 1;
    atexit(restore);
    for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = restore_then_resignal;
        // On the alternate stack when there is one: a stack overflow arrives as SIGSEGV.
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(ending_signals[i], &action, &previous[i]);
    }
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
