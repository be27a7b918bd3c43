// The loader's notes of where a file's times go back and its merge of the
// sorted runs (graph/src/run_merge.hpp): the notes against a
// brute-force scan of the whole file, on random times delivered in random
// spans (as the parser's batches and the column's blocks cut them), steps back
// at a span's first time included, and more steps than are kept; the merge
// against a stable sort, split at every output, on runs that cross the time
// column's blocks (tiny here), start or end at a block's edge or at 0, tie
// with each other and hold the extreme times.
#include "run_merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace hashtrace::graph::detail {
namespace {

std::vector<std::size_t> brute_force(const std::vector<std::int64_t>& times, std::size_t first) {
    std::vector<std::size_t> starts;
    for (std::size_t k = 1; k < times.size() && starts.size() < RunStarts::kMaxNoted; ++k)
        if (times[k] < times[k - 1]) starts.push_back(first + k);
    return starts;
}

TEST(LoadRuns, StartsMatchABruteForceScanWhateverTheSpans) {
    std::mt19937 rng(5);
    for (int round = 0; round < 2000; ++round) {
        const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 300)(rng);
        const int back_per_mille = std::uniform_int_distribution<>(0, 3)(rng) * 20;  // none, rare, ..., frequent
        std::vector<std::int64_t> times(n);
        std::int64_t t = std::uniform_int_distribution<std::int64_t>(-1000, 1000)(rng);
        for (auto& time : times) {
            if (std::uniform_int_distribution<>(0, 999)(rng) < back_per_mille)
                t -= std::uniform_int_distribution<>(1, 50)(rng);
            else
                t += std::uniform_int_distribution<>(0, 2)(rng);  // 0: a tie, not a step back
            time = t;
        }
        const std::size_t first = std::uniform_int_distribution<std::size_t>(0, 1 << 20)(rng);
        RunStarts runs(first);
        for (std::size_t done = 0; done < n;) {
            const std::size_t span = std::min(n - done, std::uniform_int_distribution<std::size_t>(0, 40)(rng));
            runs.note(times.data() + done, span);
            done += span;
        }
        EXPECT_EQ(runs.starts(), brute_force(times, first)) << "round " << round;
    }
}

TEST(LoadRuns, FirstTimeOfAFileNeverStartsARun) {
    const std::vector<std::int64_t> times = {-5, -5, -6, 7};
    RunStarts runs(100);
    runs.note(times.data(), 1);
    runs.note(times.data() + 1, 0);
    runs.note(times.data() + 1, 3);
    EXPECT_EQ(runs.starts(), (std::vector<std::size_t>{102}));
}

// A time column in blocks of 4 values, as BlockColumn (only what the merge reads).
struct TinyBlockColumn {
    static constexpr std::size_t kBlock = 4;
    std::vector<std::int64_t> values;  // a multiple of kBlock long
    const std::int64_t* block(std::size_t b) const { return values.data() + b * kBlock; }
};

struct Placed {
    std::uint32_t tag;
    std::size_t position;
    std::int64_t time;
    bool operator==(const Placed&) const = default;
};

TEST(LoadRuns, MergeMatchesAStableSortSplitAnywhere) {
    std::mt19937 rng(11);
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    for (int round = 0; round < 400; ++round) {
        TinyBlockColumn column;
        std::vector<SortedRun<TinyBlockColumn>> runs(std::uniform_int_distribution<std::size_t>(1, RunStarts::kMaxNoted)(rng));
        std::vector<Placed> expected;
        for (std::uint32_t r = 0; r < runs.size(); ++r) {
            // Some runs empty or of one sample; gaps between runs, so that they start anywhere in a block.
            column.values.resize(column.values.size() + std::uniform_int_distribution<std::size_t>(0, 2)(rng) * (round % 3));
            const std::size_t count = std::uniform_int_distribution<std::size_t>(0, 3)(rng) == 0
                                          ? std::uniform_int_distribution<std::size_t>(0, 1)(rng)
                                          : std::uniform_int_distribution<std::size_t>(2, 30)(rng);
            runs[r] = {&column, column.values.size(), count, 10 + r};
            std::vector<std::int64_t> times(count);
            for (auto& t : times) {
                const int pick = std::uniform_int_distribution<>(0, 19)(rng);
                t = pick == 0 ? kMin : pick == 1 ? kMax : std::uniform_int_distribution<std::int64_t>(0, 40)(rng);
            }
            std::sort(times.begin(), times.end());
            for (const std::int64_t t : times) {
                expected.push_back({10 + r, column.values.size(), t});
                column.values.push_back(t);
            }
        }
        column.values.resize((column.values.size() / TinyBlockColumn::kBlock + 1) * TinyBlockColumn::kBlock);
        std::stable_sort(expected.begin(), expected.end(), [](const Placed& a, const Placed& b) { return a.time < b.time; });
        const std::size_t n = expected.size();
        for (std::size_t k = 0; k <= n; ++k) {
            std::vector<Placed> got(n, Placed{0, 0, 0});
            std::vector<int> times_placed(n, 0);
            auto place = [&](std::size_t i, std::uint32_t tag, std::size_t position, std::int64_t time) {
                ASSERT_LT(i, n);
                got[i] = {tag, position, time};
                ++times_placed[i];
            };
            merge_runs<MergePart::front>(runs, k, place);
            merge_runs<MergePart::back>(runs, k, place);
            ASSERT_EQ(std::count(times_placed.begin(), times_placed.end(), 1), static_cast<std::ptrdiff_t>(n)) << "round " << round << ", k " << k;
            ASSERT_EQ(got, expected) << "round " << round << ", k " << k;
        }
    }
}

}  // namespace
}  // namespace hashtrace::graph::detail
