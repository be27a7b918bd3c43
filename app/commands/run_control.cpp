#include "run_control.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace hashtrace::clocksync::cli {
namespace {
std::atomic<bool> g_stop_requested{false};
extern "C" void request_stop(int) { g_stop_requested.store(true); }
}  // namespace

std::function<bool()> run_until_stopped(double duration_s) {
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(duration_s));
    return [deadline, duration_s] {
        return !g_stop_requested.load() && (duration_s <= 0 || std::chrono::steady_clock::now() < deadline);
    };
}

std::filesystem::path log_dir_option(hashtrace::cli::Args& args) {
    const char* env = std::getenv("HASHTRACE_LOG_DIR");
    std::filesystem::path dir = args.option_or("--log-dir", env != nullptr && *env != '\0' ? env : ".");
    std::filesystem::create_directories(dir);
    return dir;
}

std::string host_option(hashtrace::cli::Args& args) {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
    std::string host = args.option_or("--host", name[0] != '\0' ? name : "localhost");
    if (host.empty() || host.find_first_of(",/\n") != std::string::npos)
        throw hashtrace::cli::UsageError("--host '" + host + "' must be non-empty, without ',' or '/'");
    return host;
}

}  // namespace hashtrace::clocksync::cli
