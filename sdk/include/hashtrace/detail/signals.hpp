// hashtrace/detail/signals.hpp - SIGINT and SIGTERM: the handler only notes
// the signal (async-signal-safe); the writer thread completes the log and, if
// the application left the default action, ends the process as it would have.
#pragma once

#include <signal.h>

#include <atomic>

#pragma GCC visibility push(default)  // one runtime per process: see runtime.hpp

namespace hashtrace::detail {

inline std::atomic<int> g_pending_signal{0};
inline struct sigaction g_previous_action[2];  // SIGINT, SIGTERM
inline bool g_handlers_installed = false;

inline int signal_slot(int sig) noexcept { return sig == SIGINT ? 0 : 1; }

// Async-signal-safe: an atomic store, and the application's own handler if it had one.
extern "C" inline void hashtrace_on_signal(int sig, siginfo_t* info, void* context) {
    g_pending_signal.store(sig, std::memory_order_release);
    const struct sigaction& prev = g_previous_action[signal_slot(sig)];
    if (prev.sa_flags & SA_SIGINFO) {
        if (prev.sa_sigaction) prev.sa_sigaction(sig, info, context);
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
        prev.sa_handler(sig);
    }
}

inline void install_signal_handlers() {
    for (int sig : {SIGINT, SIGTERM}) {
        struct sigaction prev;
        sigaction(sig, nullptr, &prev);
        if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN) continue;  // the app chose to ignore it
        g_previous_action[signal_slot(sig)] = prev;
        struct sigaction act {};
        act.sa_sigaction = hashtrace_on_signal;
        act.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&act.sa_mask);
        sigaction(sig, &act, nullptr);
    }
    g_handlers_installed = true;
}

inline void restore_signal_handlers() {
    if (!g_handlers_installed) return;
    for (int sig : {SIGINT, SIGTERM}) {
        struct sigaction current;
        sigaction(sig, nullptr, &current);
        if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == hashtrace_on_signal)
            sigaction(sig, &g_previous_action[signal_slot(sig)], nullptr);
    }
    g_handlers_installed = false;
}

// True when the application left the signal at its default action, which is
// to end the process: then the writer ends it, after the log is complete.
inline bool signal_ends_process(int sig) noexcept {
    const struct sigaction& prev = g_previous_action[signal_slot(sig)];
    return !(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_DFL;
}

}  // namespace hashtrace::detail

#pragma GCC visibility pop
