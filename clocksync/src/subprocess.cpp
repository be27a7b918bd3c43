#include "hashtrace/clocksync/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace hashtrace::clocksync {
namespace {

std::vector<char*> to_argv(const std::vector<std::string>& argv) {
    if (argv.empty()) throw SubprocessError("empty command");
    std::vector<char*> out;
    for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
    out.push_back(nullptr);
    return out;
}

// Spawns with stdout and stderr on `output_fd`; stdin from /dev/null.
pid_t spawn(const std::vector<std::string>& argv, int output_fd) {
    auto args = to_argv(argv);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, output_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, output_fd, 2);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw SubprocessError("cannot start " + argv[0] + ": " + std::strerror(rc) + " (is linuxptp installed?)");
    return pid;
}

int decode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw SubprocessError(std::string("pipe: ") + std::strerror(errno));
    pid_t pid = -1;
    try {
        pid = spawn(argv, pipe_fds[1]);
    } catch (...) {
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        throw;
    }
    ::close(pipe_fds[1]);

    CommandResult result;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buffer[4096];
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        pollfd fd{pipe_fds[0], POLLIN, 0};
        const int ready = ::poll(&fd, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child closed its output
        result.output.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = result.timed_out ? -1 : decode(status);
    return result;
}

Daemon::Daemon(const std::vector<std::string>& argv, const std::filesystem::path& log_file) : name_(argv.at(0)) {
    const int fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw SubprocessError("cannot open " + log_file.string() + ": " + std::strerror(errno));
    try {
        pid_ = spawn(argv, fd);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
}

Daemon::~Daemon() { stop(); }

bool Daemon::running() {
    if (reaped_) return false;
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
        reaped_ = true;
        status_ = decode(status);
        return false;
    }
    return true;
}

void Daemon::stop() {
    if (!running()) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 200 && running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (running()) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        reaped_ = true;
        status_ = -1;
    }
}

}  // namespace hashtrace::clocksync
