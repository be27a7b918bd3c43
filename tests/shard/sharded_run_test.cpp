// summarize_at_once: shards summarised several at a time are taken in shard
// order whatever order they finish in, the last on its own (all threads),
// and a failure is the first in shard order, with nothing after it taken.
#include "hashtrace/shard/sharded_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace hashtrace::shard {
namespace {

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

TEST(SummarizeAtOnce, TakesShardsInOrderThoughLaterOnesFinishFirst) {
    constexpr std::size_t kCount = 9;
    constexpr unsigned kLanes = 3;
    std::mutex mutex;
    std::vector<std::size_t> alone;
    std::vector<std::uint64_t> taken;
    const auto summarize = [&](std::size_t k, bool is_alone) {
        sleep_ms(static_cast<int>(kCount - k) * 4);  // of the shards running together, the later finish first
        if (is_alone) {
            const std::lock_guard lock(mutex);
            alone.push_back(k);
        }
        ShardSummary s;
        s.samples = k;
        return s;
    };
    summarize_at_once(1, kCount, kLanes, summarize, [&](std::size_t k, ShardSummary& s) {
        EXPECT_EQ(s.samples, k);
        taken.push_back(s.samples);
    });
    EXPECT_EQ(taken, (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
    std::sort(alone.begin(), alone.end());
    EXPECT_EQ(alone, (std::vector<std::size_t>{7, 8}));  // fewer shards than lanes left: no others beside them
}

// Runs `count` shards three at a time; returns the shards taken and the
// message of the failure rethrown ("" if none was).
template <class Summarize>
std::pair<std::vector<std::size_t>, std::string> taken_and_failure(std::size_t count, const Summarize& summarize) {
    std::vector<std::size_t> taken;
    try {
        summarize_at_once(0, count, 3, summarize, [&](std::size_t k, ShardSummary&) { taken.push_back(k); });
    } catch (const std::runtime_error& e) {
        return {taken, e.what()};
    }
    return {taken, ""};
}

TEST(SummarizeAtOnce, RethrowsTheFirstFailureInShardOrderAndTakesNothingAfterIt) {
    const auto [taken, failure] = taken_and_failure(8, [&](std::size_t k, bool) {
        if (k == 2) {
            sleep_ms(50);  // fails last, though first in shard order
            throw std::runtime_error("shard 2");
        }
        if (k == 4) throw std::runtime_error("shard 4");
        return ShardSummary();
    });
    EXPECT_EQ(failure, "shard 2");
    EXPECT_EQ(taken, (std::vector<std::size_t>{0, 1}));
}

// The failure of a later shard can come before an earlier shard finishes
// (under load it did): the earlier one is still taken when it finishes.
TEST(SummarizeAtOnce, TakesTheShardsBeforeAFailureThatCameFirst) {
    const auto [taken, failure] = taken_and_failure(6, [&](std::size_t k, bool) {
        if (k == 0) sleep_ms(100);  // still running when shard 3 fails (the other lanes take 1, 2 and 3)
        if (k == 3) throw std::runtime_error("shard 3");
        return ShardSummary();
    });
    EXPECT_EQ(failure, "shard 3");
    EXPECT_EQ(taken, (std::vector<std::size_t>{0, 1, 2}));
}

}  // namespace
}  // namespace hashtrace::shard
