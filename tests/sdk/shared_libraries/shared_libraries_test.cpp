// Two shared libraries that each include the SDK (built with hidden
// visibility) and the program that loads them: one session, one writer, one
// log, whether the runtime is compiled into every includer (the default) or
// linked once as hashtrace::sdk_runtime (the same test, built both ways).
#include "../test_support.hpp"

#include <hashtrace/logio/reader.hpp>

#include <map>
#include <string>

extern "C" void plugin_a_work(int samples);
extern "C" void plugin_b_work(int samples);
extern "C" bool plugin_a_sees_session(std::string* log_path);
extern "C" bool plugin_b_sees_session(std::string* log_path);

using hashtrace::testing::fresh_dir;
using hashtrace::testing::test_config;

TEST(SharedLibraries, EveryLibraryRecordsIntoTheProgramsOneSession) {
    const auto dir = fresh_dir("plugins");
    std::string log_path;
    {
        hashtrace::Session session(test_config(dir));
        log_path = session.log_path();
        std::string seen_by_a, seen_by_b;
        ASSERT_TRUE(plugin_a_sees_session(&seen_by_a)) << "library A sees no session: it has a runtime of its own";
        ASSERT_TRUE(plugin_b_sees_session(&seen_by_b)) << "library B sees no session: it has a runtime of its own";
        EXPECT_EQ(seen_by_a, log_path);
        EXPECT_EQ(seen_by_b, log_path);
        EXPECT_THROW(hashtrace::start(test_config(dir)), std::logic_error) << "a second session could start";
        for (int i = 0; i < 100; ++i) TRACEPOINT("Program", hashtrace::inout("i", i));
        plugin_a_work(200);
        plugin_b_work(300);
    }
    EXPECT_EQ(hashtrace::stats().written, 600u);
    const auto logs = hashtrace::logio::find_logs({dir});
    ASSERT_EQ(logs.size(), 1u) << "one log per process, not one per library";
    EXPECT_EQ(logs.front().string(), log_path);
    const auto log = hashtrace::logio::load_log(logs.front());
    EXPECT_TRUE(log.report.clean_close);
    std::map<std::string, int> samples_by_tracepoint;
    for (const auto& s : log.samples) ++samples_by_tracepoint[log.tracepoints.at(s.tracepoint).tracepoint_name];
    EXPECT_EQ(samples_by_tracepoint, (std::map<std::string, int>{{"Program", 100}, {"PluginA", 200}, {"PluginB", 300}}));
    // One writer numbered the threads: the main thread has one id in all three.
    for (const auto& s : log.samples) EXPECT_EQ(s.thread, log.samples.front().thread);
}
