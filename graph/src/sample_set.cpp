#include "hashtrace/graph/sample_set.hpp"

#include "time_order.hpp"

#include <algorithm>
#include <limits>

namespace hashtrace::graph {
namespace detail {

// Each file is almost always in time order already, so the samples are a few
// sorted runs: a natural merge sort (stable, log2(runs) sequential passes)
// beats any general sort. Many runs (unsorted files) fall back to a stable
// LSD radix sort, 11 bits a pass so the counts fit L1.
Column<SampleIndex> time_order(std::span<const std::int64_t> time) {
    const std::size_t n = time.size();
    Column<SampleIndex> order(n), next(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<SampleIndex>(i);
    std::vector<std::size_t> runs{0};
    for (std::size_t i = 1; i < n; ++i)
        if (time[i] < time[i - 1]) runs.push_back(i);
    runs.push_back(n);
    constexpr std::size_t kMaxRunsForMerge = 64;
    if (runs.size() - 1 <= kMaxRunsForMerge) {
        auto earlier = [&](SampleIndex a, SampleIndex b) { return time[a] < time[b]; };
        while (runs.size() > 2) {
            std::vector<std::size_t> merged{0};
            for (std::size_t r = 0; r + 1 < runs.size(); r += 2) {
                const std::size_t a = runs[r], b = runs[r + 1], c = r + 2 < runs.size() ? runs[r + 2] : b;
                std::merge(order.begin() + a, order.begin() + b, order.begin() + b, order.begin() + c, next.begin() + a, earlier);
                merged.push_back(c);
            }
            order.swap(next);
            runs.swap(merged);
        }
        return order;
    }
    const auto bounds = std::minmax_element(time.begin(), time.end());
    const auto lo = static_cast<std::uint64_t>(*bounds.first);
    const std::uint64_t range = static_cast<std::uint64_t>(*bounds.second) - lo;
    constexpr int kBits = 11;
    constexpr std::size_t kBuckets = std::size_t{1} << kBits;
    for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += kBits) {
        std::vector<std::uint32_t> start(kBuckets + 1, 0);
        auto digit = [&](SampleIndex i) {
            return ((static_cast<std::uint64_t>(time[i]) - lo) >> shift) & (kBuckets - 1);
        };
        for (SampleIndex i : order) ++start[digit(i) + 1];
        for (std::size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
        for (SampleIndex i : order) next[start[digit(i)]++] = i;
        order.swap(next);
    }
    return order;
}

}  // namespace detail

std::string SampleSet::label(SampleIndex s) const {
    const Tracepoint& tp = tracepoint_of(s);
    return tp.node_name + "/" + tp.tracepoint_name;
}

// Swapped with empty columns: `input = {}` would pick vector's
// operator=(initializer_list), which empties a column and keeps its buffer.
void SampleSet::drop_hash_ids() noexcept {
    Column<HashId>().swap(input);
    Column<HashId>().swap(output);
}

void sort_by_time(SampleSet& samples) {
    if (std::is_sorted(samples.time_ns.begin(), samples.time_ns.end())) return;
    const Column<SampleIndex> order = detail::time_order(samples.time_ns);
    samples.for_each_column([&](auto& column) { detail::permute(column, order); });
}

void correct_times(SampleSet& samples, const TimeCorrection& correction) {
    for (std::size_t i = 0; i < samples.size(); ++i) samples.time_ns[i] = correction(samples.file_of(static_cast<SampleIndex>(i)), samples.time_ns[i]);
    sort_by_time(samples);
}

}  // namespace hashtrace::graph
