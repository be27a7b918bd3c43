// The window: what it hands the linker is whole logs (header, definitions,
// the blocks reaching into the range), and forgetting keeps the definitions.
#include "hashtrace/live/window.hpp"
#include "hashtrace/logio/reader.hpp"

#include "node_logs.hpp"

#include <gtest/gtest.h>

namespace hashtrace::live::testing {
namespace {

constexpr std::int64_t kStart = 2'000'000'000, kMs = 1'000'000;

// 100 samples 1 ms apart, 10 a block, fed to the window as stream 0.
Window window_of_one_node() {
    std::vector<TestSample> samples;
    for (int k = 0; k < 100; ++k) samples.push_back({kStart + k * kMs, std::nullopt, std::uint64_t(k)});
    const std::string log = node_log("A", "Send", samples, 10);
    logio::BlockStream stream("A");
    Window w;
    for (auto& b : stream.feed(log)) w.add(0, "A-1-0", stream.header_bytes(), std::move(b));
    return w;
}

std::vector<std::int64_t> sample_times(const std::string& log) {
    struct Collect : logio::LogVisitor {
        std::vector<std::int64_t> times;
        void on_samples(std::span<const logio::SampleRecord> batch) override {
            for (const auto& s : batch) times.push_back(s.time_ns);
        }
    } c;
    logio::read_binary(log, "window", c);
    return c.times;
}

// Samples k of the node for k in [from, to).
std::vector<std::int64_t> times_of(int from, int to) {
    std::vector<std::int64_t> out;
    for (int k = from; k < to; ++k) out.push_back(kStart + k * kMs);
    return out;
}

std::vector<std::int64_t> joined(std::vector<std::int64_t> a, const std::vector<std::int64_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(Window, HoldsTheNewestAndOldestSampleTimes) {
    const Window w = window_of_one_node();
    EXPECT_EQ(w.newest_ns(), kStart + 99 * kMs);
    EXPECT_EQ(w.oldest_ns(), kStart);
}

TEST(Window, ALogFromATimeOnHoldsTheBlocksReachingThere) {
    const Window w = window_of_one_node();
    const auto logs = w.logs(kStart + 55 * kMs);
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_EQ(logs[0].first, "A-1-0");
    // A readable log: the first block, which defines the tracepoint (and
    // holds samples 0..9), then whole blocks from the one holding 55 ms on.
    EXPECT_EQ(sample_times(logs[0].second), joined(times_of(0, 10), times_of(50, 100)));
}

TEST(Window, ForgettingKeepsTheDefinitionsLaterBlocksNeed) {
    Window w = window_of_one_node();
    w.forget_before(kStart + 80 * kMs);
    EXPECT_EQ(sample_times(w.logs(INT64_MIN)[0].second), joined(times_of(0, 10), times_of(80, 100)));
    EXPECT_EQ(w.oldest_ns(), kStart);  // the block of definitions stays, with its samples
}

// Two nodes of 100 samples 1 ms apart, 10 a block; B's samples 0.5 ms after A's.
Window window_of_two_nodes() {
    Window w = window_of_one_node();
    std::vector<TestSample> samples;
    for (int k = 0; k < 100; ++k) samples.push_back({kStart + k * kMs + kMs / 2, std::uint64_t(k), std::nullopt});
    logio::BlockStream stream("B");
    for (auto& b : stream.feed(node_log("B", "Receive", samples, 10))) w.add(1, "B-1-1", stream.header_bytes(), std::move(b));
    return w;
}

TEST(Window, SheddingTakesTheOldestWholeBlocksAcrossStreams) {
    Window w = window_of_two_nodes();
    EXPECT_EQ(w.samples_in(INT64_MIN, INT64_MAX), 200u);
    EXPECT_EQ(w.samples_in(kStart + 15 * kMs, kStart + 30 * kMs), 40u);  // blocks 1 and 2 of each reach into it
    // From 20 ms on (blocks 2.. of each; block 1 reaches 19.5 ms), at least 25 samples: the oldest
    // blocks by their newest sample are A's 2 (29 ms), B's 2 (29.5 ms), A's 3 (39 ms): 30 samples.
    const auto shed = w.shed(kStart + 20 * kMs, 25);
    EXPECT_EQ(shed, (std::map<std::size_t, std::uint64_t>{{0, 20}, {1, 10}}));
    EXPECT_EQ(w.samples_in(INT64_MIN, INT64_MAX), 170u);
    const auto logs = w.logs(INT64_MIN);
    EXPECT_EQ(sample_times(logs[0].second), joined(times_of(0, 20), times_of(40, 100)));
    // B's block 3 (30.5-39.5 ms) is newer than the cut (A's block 3, 39 ms): it stays.
    EXPECT_EQ(sample_times(logs[1].second).size(), 90u);
}

TEST(Window, SheddingKeepsDefinitionsAndWhatIsPartlySettled) {
    Window w = window_of_two_nodes();
    // Every block wholly from 5 ms on, however many asked: the first blocks
    // (definitions, and samples from 0 ms) stay, so do blocks starting before 5 ms.
    const auto shed = w.shed(kStart + 5 * kMs, 1000);
    EXPECT_EQ(shed, (std::map<std::size_t, std::uint64_t>{{0, 90}, {1, 90}}));
    EXPECT_EQ(sample_times(w.logs(INT64_MIN)[0].second), times_of(0, 10));
    EXPECT_EQ(w.samples_in(INT64_MIN, INT64_MAX), 20u);
    EXPECT_TRUE(w.shed(kStart + 5 * kMs, 1000).empty());  // nothing left to shed
    EXPECT_TRUE(window_of_two_nodes().shed(kStart, 0).empty());  // no excess: nothing shed
}

}  // namespace
}  // namespace hashtrace::live::testing
