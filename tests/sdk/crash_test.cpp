// What a traced process leaves behind when it dies: SIGKILL (nothing runs),
// SIGTERM with the default action, and SIGINT handled by the application.
#include "test_support.hpp"

#include <hashtrace/logio/reader.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <new>
#include <random>
#include <thread>
#include <vector>

using hashtrace::testing::fresh_dir;
using hashtrace::testing::test_config;

namespace {

std::string only_log_in(const std::filesystem::path& dir) {
    auto logs = hashtrace::logio::find_logs({dir});
    EXPECT_EQ(logs.size(), 1u);
    return logs.empty() ? std::string() : logs.front().string();
}

void expect_complete_sequence(const hashtrace::logio::SampleLog& log, std::size_t expected) {
    ASSERT_EQ(log.samples.size(), expected);
    for (std::size_t i = 0; i < log.samples.size(); ++i) ASSERT_EQ(log.samples[i].seq, i);
}

// Runs `child` in a forked process and returns its wait status.
template <class F>
int run_child(F child) {
    const pid_t pid = fork();
    if (pid == 0) {
        child();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

}  // namespace

TEST(Crash, SigkillLeavesALogReadableUpToTheLastFlush) {
    for (auto format : {hashtrace::LogFormat::binary, hashtrace::LogFormat::csv}) {
        const auto dir = fresh_dir(format == hashtrace::LogFormat::csv ? "csv" : "bin");
        const int status = run_child([&] {
            auto config = test_config(dir, format);
            config.flush_interval = std::chrono::milliseconds(10);
            config.when_full = hashtrace::FullPolicy::block;  // no drops: any hole would be the log's fault
            hashtrace::start(config);
            for (int i = 0; i < 5000; ++i) TRACEPOINT("BeforeFlush", hashtrace::inout("i", i));
            std::this_thread::sleep_for(std::chrono::milliseconds(200));  // > flush interval: these are on disk
            for (int i = 0; i < 100000; ++i) TRACEPOINT("Racing", hashtrace::inout("i", i));  // some may be lost
            kill(getpid(), SIGKILL);
        });
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        const auto log = hashtrace::logio::load_log(only_log_in(dir));
        ASSERT_GE(log.samples.size(), 5000u);
        EXPECT_FALSE(log.report.clean_close);
        for (std::size_t i = 0; i < log.samples.size(); ++i) ASSERT_EQ(log.samples[i].seq, i) << "a hole, not a tail";
    }
}

TEST(Crash, SigtermWithDefaultActionCompletesTheLogThenEndsTheProcess) {
    const auto dir = fresh_dir("term");
    const int status = run_child([&] {
        auto config = test_config(dir);
        config.install_signal_handlers = true;
        config.flush_interval = std::chrono::seconds(60);  // only the signal can flush in time
        // More samples than a queue holds (16 Ki): on a busy machine the
        // writer may not drain before the loop ends, and a dropped sample
        // would be a hole this test does not mean to test.
        config.when_full = hashtrace::FullPolicy::block;
        hashtrace::start(config);
        for (int i = 0; i < 20000; ++i) TRACEPOINT("Work", hashtrace::inout("i", i));
        raise(SIGTERM);
        for (;;) pause();  // the writer ends the process once the log is complete
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
    const auto log = hashtrace::logio::load_log(only_log_in(dir));
    expect_complete_sequence(log, 20000);
    EXPECT_TRUE(log.report.clean_close);
}

namespace {
volatile sig_atomic_t g_app_saw_sigint = 0;
}

TEST(Crash, SigintHandledByTheApplicationFlushesAndKeepsRecording) {
    const auto dir = fresh_dir("int");
    const int status = run_child([&] {
        signal(SIGINT, [](int) { g_app_saw_sigint = 1; });  // the app's own handler, installed first
        auto config = test_config(dir);
        config.install_signal_handlers = true;
        config.flush_interval = std::chrono::seconds(60);
        hashtrace::start(config);
        for (int i = 0; i < 1000; ++i) TRACEPOINT("Work", hashtrace::inout("i", i));
        raise(SIGINT);
        while (!g_app_saw_sigint) std::this_thread::yield();
        for (int i = 1000; i < 1500; ++i) TRACEPOINT("Work", hashtrace::inout("i", i));
        hashtrace::stop();  // the app's orderly shutdown
        _exit(7);
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 7) << "the app's handler ran and the process kept going";
    const auto log = hashtrace::logio::load_log(only_log_in(dir));
    expect_complete_sequence(log, 1500);
    EXPECT_TRUE(log.report.clean_close);
}

TEST(Crash, NormalExitWithoutStopStillCompletesTheLog) {
    const auto dir = fresh_dir("exit");
    const pid_t pid = fork();
    if (pid == 0) {
        auto config = test_config(dir);
        config.flush_interval = std::chrono::seconds(60);
        hashtrace::start(config);
        for (int i = 0; i < 3000; ++i) TRACEPOINT("Work", hashtrace::inout("i", i));
        std::exit(0);  // atexit handlers run: the session is stopped there
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    const auto log = hashtrace::logio::load_log(only_log_in(dir));
    expect_complete_sequence(log, 3000);
    EXPECT_TRUE(log.report.clean_close);
}

namespace {

// What the traced children tell the test, in memory shared across fork():
// when each of their tracepoints returned.
constexpr int kWorkers = 4;
constexpr std::size_t kMaxSamples = 1u << 16;  // per worker; a trial makes a few thousand
struct Progress {
    std::atomic<int> started;
    std::atomic<std::uint64_t> count[kWorkers];
    std::int64_t returned_ns[kWorkers][kMaxSamples];  // CLOCK_REALTIME
};

[[noreturn]] void traced_workers(const std::filesystem::path& dir, Progress& progress, std::chrono::milliseconds flush) {
    auto config = test_config(dir);
    config.flush_interval = flush;
    config.when_full = hashtrace::FullPolicy::block;  // nothing dropped: every hole would be the log's
    hashtrace::start(config);
    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w)
        workers.emplace_back([w, &progress] {
            hashtrace::set_thread_name("worker-" + std::to_string(w));
            progress.started.fetch_add(1);
            for (std::uint64_t i = 0; i < kMaxSamples; ++i) {
                TRACEPOINT("Work", hashtrace::inout("i", w, i));
                progress.returned_ns[w][i] = hashtrace::detail::now_ns();
                progress.count[w].store(i + 1, std::memory_order_release);
                std::this_thread::sleep_for(std::chrono::microseconds(20));
            }
        });
    for (auto& t : workers) t.join();
    _exit(1);  // not reached: the test kills it first
}

}  // namespace

// The durability promise (docs/sdk.md, "Crashes and signals"), at 20 random
// moments: SIGKILL a process whose threads are recording, then every sample
// whose tracepoint returned more than the flush interval (plus as much again
// for the writer to be scheduled) before the kill is in the log, per thread
// without a hole, and the reader says the log did not close cleanly.
TEST(Crash, RandomKillsKeepEverySampleOlderThanTheFlushInterval) {
    constexpr auto kFlush = std::chrono::milliseconds(50);
    constexpr std::int64_t kOnDiskAfterNs = 2 * std::chrono::nanoseconds(kFlush).count();
    std::mt19937 random(std::random_device{}());
    for (int trial = 0; trial < 20; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        const auto dir = fresh_dir("kill" + std::to_string(trial));
        void* shared = mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(shared, MAP_FAILED);
        auto& progress = *new (shared) Progress{};
        const pid_t pid = fork();
        if (pid == 0) traced_workers(dir, progress, kFlush);
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (progress.started.load() < kWorkers && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (progress.started.load() < kWorkers) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
            FAIL() << "the traced workers did not start within 30 s";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(10, 400)(random)));
        const std::int64_t killed_ns = hashtrace::detail::now_ns();
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        const auto log = hashtrace::logio::load_log(only_log_in(dir));
        EXPECT_FALSE(log.report.clean_close) << "a killed process's log reads as closed cleanly";
        std::map<std::uint32_t, std::string> name_of;
        for (const auto& t : log.threads) name_of[t.thread] = t.name;
        std::map<std::string, std::uint64_t> in_log;
        for (const auto& s : log.samples) {
            std::uint64_t& n = in_log[name_of[s.thread]];
            ASSERT_EQ(s.seq, n) << name_of[s.thread] << ": a hole, not a lost tail";
            ++n;
        }
        for (int w = 0; w < kWorkers; ++w) {
            const std::uint64_t made = progress.count[w].load();
            const std::int64_t* returned = progress.returned_ns[w];
            const auto old_enough = static_cast<std::uint64_t>(
                std::lower_bound(returned, returned + made, killed_ns - kOnDiskAfterNs) - returned);
            const std::uint64_t saved = in_log["worker-" + std::to_string(w)];
            EXPECT_GE(saved, old_enough) << "worker " << w << ": " << old_enough - std::min(saved, old_enough)
                                         << " samples older than the promise are missing (made " << made << ")";
            EXPECT_LE(saved, made + 1);
        }
        munmap(shared, sizeof(Progress));
    }
}
