// The forward search's frontier (metrics/src/frontier.hpp) against
// std::priority_queue on random pushes and pops: frontiers that stay in the
// sorted buffer, grow into the binary heap and far past the buffer's first
// capacity, shrink and grow again; repeated samples and the extremes of the
// index range; one buffer reused by frontier after frontier.
#include "frontier.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <vector>

namespace hashtrace::metrics::detail {
namespace {

using graph::SampleIndex;

TEST(Frontier, PopsTheSmallestSampleLikeAPriorityQueue) {
    std::mt19937_64 rng(5);
    std::vector<SampleIndex> buffer;  // shared by every frontier below, as the searches share theirs
    for (int round = 0; round < 400; ++round) {
        // Up to ~2, ~40 or ~300 samples at once: the sorted buffer only, just past it, far past it.
        const std::uint64_t widths[] = {2, 40, 300};
        const std::uint64_t width = widths[rng() % 3];
        // Samples from a narrow range (many repeats), a wide one, or the extremes.
        const int range = static_cast<int>(rng() % 3);
        auto sample = [&]() -> SampleIndex {
            if (range == 0) return static_cast<SampleIndex>(rng() % 8);
            if (range == 1) return static_cast<SampleIndex>(rng());
            return rng() % 2 ? 0 : 0xFFFFFFFFu - static_cast<SampleIndex>(rng() % 2);
        };
        Frontier frontier(buffer);
        std::priority_queue<SampleIndex, std::vector<SampleIndex>, std::greater<>> want;
        for (int step = 0; step < 2000; ++step) {
            ASSERT_EQ(frontier.empty(), want.empty());
            // Push while below the round's width, mostly; pop otherwise.
            const bool push = want.empty() || rng() % (2 * width) >= want.size();
            if (push) {
                const SampleIndex c = sample();
                frontier.push(c);
                want.push(c);
            } else {
                ASSERT_EQ(frontier.pop(), want.top()) << "round " << round << ", step " << step;
                want.pop();
            }
        }
        while (!want.empty()) {
            ASSERT_EQ(frontier.pop(), want.top());
            want.pop();
        }
        EXPECT_TRUE(frontier.empty());
    }
}

}  // namespace
}  // namespace hashtrace::metrics::detail
