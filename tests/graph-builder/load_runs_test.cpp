// The loader's notes of where a file's times go back
// (graph-builder/src/run_merge.hpp, RunStarts): against a brute-force scan of
// the whole file, on random times delivered in random spans (as the parser's
// batches and the column's blocks cut them), steps back at a span's first
// time included, and more steps than are kept.
#include "run_merge.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hashtrace::graph::detail
