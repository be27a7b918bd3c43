// What a traced process leaves behind when it dies: SIGKILL (nothing runs),
// SIGTERM with the default action, and SIGINT handled by the application.
#include "test_support.hpp"

#include <hashtrace/logio/reader.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

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
