// A session end to end: tracepoints -> queue -> writer -> log -> reader.
#include "test_support.hpp"

#include <hashtrace/logio/reader.hpp>

#include <cstring>
#include <map>
#include <thread>
#include <vector>

using hashtrace::HashFunction;
using hashtrace::testing::fresh_dir;
using hashtrace::testing::test_config;

namespace {

std::map<std::string, std::uint32_t> index_by_name(const hashtrace::logio::SampleLog& log) {
    std::map<std::string, std::uint32_t> m;
    for (std::uint32_t i = 0; i < log.tracepoints.size(); ++i) m[log.tracepoints[i].tracepoint_name] = i;
    return m;
}

class BothFormats : public ::testing::TestWithParam<hashtrace::LogFormat> {};

}  // namespace

TEST_P(BothFormats, SamplesCarryExactHashesAndTheTable1Definition) {
    const auto dir = fresh_dir("exact");
    std::string path;
    {
        hashtrace::Session s(test_config(dir, GetParam()));
        path = s.log_path();
        for (std::uint32_t i = 0; i < 100; ++i) {
            const double force = i * 0.5;
            TRACEPOINT("Inline", hashtrace::in("loop", i), hashtrace::out("messageid", i, force));
            TRACEPOINT_DEFERRED("Deferred", hashtrace::in("loop", i), hashtrace::out("messageid", i, force));
            TRACEPOINT_FAST("Fast", hashtrace::inout("messageid", i));
            TRACEPOINT("Source", hashtrace::none, hashtrace::out("loop", i));
        }
    }
    const auto log = hashtrace::logio::load_log(path);
    ASSERT_EQ(log.samples.size(), 400u);
    EXPECT_FALSE(log.report.torn);
    auto idx = index_by_name(log);
    ASSERT_EQ(idx.size(), 4u);
    const auto& inl = log.tracepoints[idx["Inline"]];
    EXPECT_EQ(inl.node_name, "Test");
    EXPECT_EQ(inl.input_hash_type, "loop");
    EXPECT_EQ(inl.output_hash_type, "messageid");
    EXPECT_EQ(inl.hash_function, HashFunction::md5);
    EXPECT_EQ(inl.instance.size(), 16u);
    EXPECT_EQ(log.tracepoints[idx["Fast"]].hash_function, HashFunction::xxh3_128);

    std::map<std::uint32_t, std::uint32_t> seen;
    for (const auto& s : log.samples) {
        const std::uint32_t i = seen[s.tracepoint]++;
        const double force = i * 0.5;
        if (s.tracepoint == idx["Inline"] || s.tracepoint == idx["Deferred"]) {
            // Deferred hashing on the writer thread gives exactly the inline result.
            EXPECT_EQ(s.input_hash, hashtrace::hash_of(HashFunction::md5, i));
            EXPECT_EQ(s.output_hash, hashtrace::hash_of(HashFunction::md5, i, force));
        } else if (s.tracepoint == idx["Fast"]) {
            EXPECT_EQ(s.input_hash, hashtrace::hash_of(HashFunction::xxh3_128, i));
            EXPECT_EQ(s.output_hash, s.input_hash);
        } else {
            EXPECT_FALSE(s.has_input());
            EXPECT_TRUE(s.has_output());
            EXPECT_EQ(s.output_hash, hashtrace::hash_of(HashFunction::md5, i));
        }
        EXPECT_TRUE(s.has_thread());
        EXPECT_TRUE(s.has_seq());
    }
    for (std::size_t i = 1; i < log.samples.size(); ++i) EXPECT_LE(log.samples[i - 1].time_ns, log.samples[i].time_ns);
}

INSTANTIATE_TEST_SUITE_P(Formats, BothFormats,
                         ::testing::Values(hashtrace::LogFormat::binary, hashtrace::LogFormat::csv),
                         [](const auto& info) { return info.param == hashtrace::LogFormat::csv ? "csv" : "binary"; });

TEST(Session, DeferredStateTooLargeToCopyIsHashedInlineWithTheSameResult) {
    const auto dir = fresh_dir("large");
    std::string big(1000, 'x');
    std::string path;
    {
        hashtrace::Session s(test_config(dir));
        path = s.log_path();
        TRACEPOINT_DEFERRED("Big", hashtrace::inout("payload", big));
        const std::string fits(hashtrace::kDeferredCapacity - 4, 'y');  // exactly the capacity with its length prefix
        TRACEPOINT_DEFERRED("Fits", hashtrace::inout("payload", fits));
    }
    const auto log = hashtrace::logio::load_log(path);
    ASSERT_EQ(log.samples.size(), 2u);
    EXPECT_EQ(log.samples[0].input_hash, hashtrace::hash_of(HashFunction::md5, big));
    EXPECT_EQ(log.samples[1].input_hash,
              hashtrace::hash_of(HashFunction::md5, std::string(hashtrace::kDeferredCapacity - 4, 'y')));
}

TEST(Session, NoSampleIsLostFromSeveralProducerThreads) {
    const auto dir = fresh_dir("threads");
    constexpr int kThreads = 4;
    constexpr std::uint32_t kPerThread = 50000;
    auto config = test_config(dir);
    config.queue_capacity = 4096;  // far smaller than the burst: the block policy must hold
    config.when_full = hashtrace::FullPolicy::block;
    std::string path;
    {
        hashtrace::Session s(config);
        path = s.log_path();
        std::vector<std::thread> producers;
        for (int t = 0; t < kThreads; ++t)
            producers.emplace_back([t] {
                hashtrace::set_thread_name("producer-" + std::to_string(t));
                for (std::uint32_t i = 0; i < kPerThread; ++i)
                    TRACEPOINT_FAST("Produce", hashtrace::in("worker", t), hashtrace::out("item", i));
            });
        for (auto& p : producers) p.join();
    }
    EXPECT_EQ(hashtrace::stats().written, std::uint64_t{kThreads} * kPerThread);
    EXPECT_EQ(hashtrace::stats().dropped, 0u);
    const auto log = hashtrace::logio::load_log(path);
    ASSERT_EQ(log.samples.size(), std::size_t{kThreads} * kPerThread);
    EXPECT_EQ(log.report.dropped_samples, 0u);
    // Every thread's sequence is complete and in order, and carries the right item.
    std::map<std::uint32_t, std::uint64_t> next_seq;
    for (const auto& s : log.samples) {
        std::uint64_t& expected = next_seq[s.thread];
        ASSERT_EQ(s.seq, expected) << "thread " << s.thread;
        EXPECT_EQ(s.output_hash, hashtrace::hash_of(HashFunction::xxh3_128, static_cast<std::uint32_t>(expected)));
        ++expected;
    }
    EXPECT_EQ(next_seq.size(), std::size_t{kThreads});
    int named = 0;
    for (const auto& t : log.threads) named += t.name.rfind("producer-", 0) == 0;
    EXPECT_EQ(named, kThreads);
}

// A thread's ring outlives it and goes to the next thread that starts: threads
// that end with samples still in their rings (the writer slowed by deferred
// MD5 of 90 bytes) lose none of them, and each keeps its own number and sequence.
TEST(Session, ThreadsThatEndLeaveTheirRingsToThreadsThatStartWithoutLosingSamples) {
    const auto dir = fresh_dir("ring_reuse");
    constexpr int kThreads = 12;
    constexpr std::uint32_t kPerThread = 3000;
    auto config = test_config(dir);
    config.queue_capacity = 4096;
    config.when_full = hashtrace::FullPolicy::block;
    std::string path;
    {
        hashtrace::Session s(config);
        path = s.log_path();
        for (int t = 0; t < kThreads; ++t) {
            std::thread([] {
                unsigned char payload[86] = {};
                for (std::uint32_t i = 0; i < kPerThread; ++i) {
                    std::memcpy(payload, &i, sizeof i);
                    TRACEPOINT_DEFERRED("Short-lived", hashtrace::inout("payload", hashtrace::bytes(payload, sizeof payload)));
                }
            }).join();
        }
    }
    EXPECT_EQ(hashtrace::stats().dropped, 0u);
    const auto log = hashtrace::logio::load_log(path);
    ASSERT_EQ(log.samples.size(), std::size_t{kThreads} * kPerThread);
    std::map<std::uint32_t, std::uint64_t> next_seq;
    for (const auto& smp : log.samples) {
        std::uint64_t& expected = next_seq[smp.thread];
        ASSERT_EQ(smp.seq, expected) << "thread " << smp.thread;
        unsigned char payload[86] = {};
        const auto i = static_cast<std::uint32_t>(expected);
        std::memcpy(payload, &i, sizeof i);
        EXPECT_EQ(smp.input_hash, hashtrace::hash_of(HashFunction::md5, hashtrace::bytes(payload, sizeof payload)));
        ++expected;
    }
    EXPECT_EQ(next_seq.size(), std::size_t{kThreads});
}

TEST(Session, AFullQueueDropsAreCountedPerTracepointAndLogged) {
    const auto dir = fresh_dir("drops");
    auto config = test_config(dir);
    config.queue_capacity = 512;
    config.when_full = hashtrace::FullPolicy::drop;
    constexpr std::uint32_t kAttempts = 200000;
    std::string path;
    {
        hashtrace::Session s(config);
        path = s.log_path();
        // Deferred MD5 of 90 bytes: the writer hashes far slower than the app copies.
        unsigned char payload[86] = {};
        for (std::uint32_t i = 0; i < kAttempts; ++i) {
            std::memcpy(payload, &i, sizeof i);
            TRACEPOINT_DEFERRED("Burst", hashtrace::inout("payload", hashtrace::bytes(payload, sizeof payload)));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the writer catches up
        TRACEPOINT("Other", hashtrace::inout("x", 1));
    }
    const auto st = hashtrace::stats();
    EXPECT_GT(st.dropped, 0u) << "the queue never filled: the test did not exercise drops";
    EXPECT_EQ(st.written + st.dropped, kAttempts + 1);
    const auto log = hashtrace::logio::load_log(path);
    auto idx = index_by_name(log);
    std::uint64_t logged_drops = 0;
    for (const auto& d : log.drops) {
        EXPECT_EQ(d.tracepoint, idx["Burst"]);  // drops are attributed to the tracepoint that lost them
        logged_drops += d.count;
    }
    EXPECT_EQ(logged_drops, st.dropped);
    EXPECT_EQ(log.samples.size() + logged_drops, kAttempts + 1);
    ASSERT_EQ(log.tracepoints[log.samples.back().tracepoint].tracepoint_name, "Other");
    // Sequence numbers skip exactly where samples were dropped.
    std::uint64_t gaps = 0, prev = 0;
    bool first = true;
    for (const auto& s : log.samples) {
        if (!first) gaps += s.seq - prev - 1;
        prev = s.seq;
        first = false;
    }
    EXPECT_EQ(gaps, logged_drops);
}

TEST(Session, EachThreadGetsItsWholeQueueCapacity) {
    // A burst of exactly queue_capacity samples, produced far faster than the
    // writer hashes them, must fit: the thread's ring really holds that many.
    const auto dir = fresh_dir("capacity");
    auto config = test_config(dir);
    config.queue_capacity = 8192;
    std::string path;
    {
        hashtrace::Session s(config);
        path = s.log_path();
        std::thread burst([] {
            hashtrace::set_thread_name("burst");
            unsigned char payload[88] = {};
            for (std::uint32_t i = 0; i < 8192; ++i) {
                std::memcpy(payload, &i, sizeof i);
                TRACEPOINT_DEFERRED("Burst", hashtrace::inout("payload", hashtrace::bytes(payload, sizeof payload)));
            }
        });
        burst.join();
    }
    EXPECT_EQ(hashtrace::stats().dropped, 0u);
    EXPECT_EQ(hashtrace::logio::load_log(path).samples.size(), 8192u);
}

TEST(Session, RuntimeSwitchStopsAndResumesRecording) {
    const auto dir = fresh_dir("switch");
    std::string path;
    {
        hashtrace::Session s(test_config(dir));
        path = s.log_path();
        for (int i = 0; i < 10; ++i) TRACEPOINT("On", hashtrace::inout("i", i));
        hashtrace::set_enabled(false);
        EXPECT_FALSE(hashtrace::enabled());
        for (int i = 0; i < 10; ++i) TRACEPOINT("Off", hashtrace::inout("i", i));
        hashtrace::set_enabled(true);
        for (int i = 0; i < 5; ++i) TRACEPOINT("On", hashtrace::inout("i", i));
    }
    const auto log = hashtrace::logio::load_log(path);
    EXPECT_EQ(log.samples.size(), 15u);
    for (const auto& tp : log.tracepoints) EXPECT_NE(tp.tracepoint_name, "Off");
    // Without a session, tracepoints record nothing and cost one branch.
    EXPECT_FALSE(hashtrace::enabled());
    TRACEPOINT("NoSession", hashtrace::inout("i", 1));
}

// A tracepoint evaluates its arguments once per call, as a function call
// would, its first call included (which also reads the hash types from
// them), and not at all while nothing records.
TEST(Session, ArgumentsAreEvaluatedOncePerCallTheFirstIncluded) {
    const auto dir = fresh_dir("evaluated_once");
    int evaluated = 0;
    std::string path;
    {
        hashtrace::Session s(test_config(dir));
        path = s.log_path();
        for (int i = 0; i < 3; ++i) TRACEPOINT("Counted", hashtrace::inout("n", ++evaluated));
        int outputs = 0;
        for (int i = 0; i < 3; ++i) TRACEPOINT_DEFERRED("CountedDeferred", hashtrace::in("n", ++evaluated), hashtrace::out("n", ++outputs));
        evaluated += outputs;
        hashtrace::set_enabled(false);
        TRACEPOINT("Counted", hashtrace::inout("n", ++evaluated));
        hashtrace::set_enabled(true);
    }
    EXPECT_EQ(evaluated, 9);
    EXPECT_EQ(hashtrace::logio::load_log(path).samples.size(), 6u);
}

// Samples are dated in CLOCK_REALTIME whichever stamp the tracepoint took
// (TSC converted by the writer, or clock_gettime): each lies between the
// clock readings taken just before and after its tracepoint, over 60 ms in
// which the writer's clock points take over from each other several times.
TEST(Session, SampleTimesAreClockRealtime) {
    const auto dir = fresh_dir("realtime");
    auto realtime = [] {
        timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    };
    std::vector<std::pair<std::int64_t, std::int64_t>> brackets;
    std::string path;
    {
        hashtrace::Session s(test_config(dir));
        path = s.log_path();
        for (int i = 0; i < 60; ++i) {
            const std::int64_t before = realtime();
            TRACEPOINT("Dated", hashtrace::inout("i", i));
            brackets.emplace_back(before, realtime());
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    const auto log = hashtrace::logio::load_log(path);
    ASSERT_EQ(log.samples.size(), brackets.size());
    // The conversion's error is tens of ns (stamp_converter_test checks it);
    // the slack allows for clock points read slowly under the sanitizers,
    // and still fails a wrong rate (0.1 % over 60 ms is 60 us) or raw ticks.
    constexpr std::int64_t kSlackNs = 20'000;
    for (std::size_t i = 0; i < brackets.size(); ++i) {
        EXPECT_GE(log.samples[i].time_ns, brackets[i].first - kSlackNs) << i;
        EXPECT_LE(log.samples[i].time_ns, brackets[i].second + kSlackNs) << i;
    }
}

TEST(Session, LogIsFlushedPeriodicallyWhileRunning) {
    const auto dir = fresh_dir("flush");
    auto config = test_config(dir);
    config.flush_interval = std::chrono::milliseconds(20);
    hashtrace::Session s(config);
    for (int i = 0; i < 100; ++i) TRACEPOINT("Tick", hashtrace::inout("i", i));
    // Within a few flush intervals the samples are on disk, session still running.
    std::size_t on_disk = 0;
    for (int attempt = 0; attempt < 100 && on_disk < 100; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        on_disk = hashtrace::logio::load_log(s.log_path()).samples.size();
    }
    EXPECT_EQ(on_disk, 100u);
}

TEST(Session, SecondConcurrentSessionIsRefused) {
    const auto dir = fresh_dir("twice");
    hashtrace::Session s(test_config(dir));
    EXPECT_THROW(hashtrace::start(test_config(dir)), std::logic_error);
}

TEST(Session, UnwritableLogDirectoryIsAClearError) {
    auto config = test_config("/proc/hashtrace-cannot-write-here");
    try {
        hashtrace::Session s(config);
        FAIL() << "a session started without a log file";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("/proc/hashtrace-cannot-write-here"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(hashtrace::running());
}
