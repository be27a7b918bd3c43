// run_merge.hpp - the time order of a few sorted runs, by merging them.
//
// Why: each log file is almost always in time order already, so a run's
// samples are a handful of sorted runs. Merging them writes each sample's
// columns once, in their final place; sorting a copy in file order
// (time_order) takes a copy, three merge passes through an index and a
// permutation of every column. The merge is split in two independent halves: the first
// k outputs are taken from the fronts of the runs, the others from their
// backs, so two threads share it without a split search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace hashtrace::graph::detail {

// Where a file's times go back: the starts of its sorted runs after the
// first, noted as the parser appends the times (values still in the cache)
// instead of in a serial pass over every time before the merge. At most
// kMaxNoted are kept: a file with more runs than a merge takes is sorted.
class RunStarts {
public:
    static constexpr std::size_t kMaxNoted = 8;

    // `first`: the position of the file's first time in its column.
    explicit RunStarts(std::size_t first = 0) : next_(first) {}

    // The next n times of the file, at the positions after the last noted.
    void note(const std::int64_t* time, std::size_t n) {
        // Almost always in order: a branch-free count of the steps back
        // first, the steps' positions only where there are some.
        std::size_t back = n > 0 && time[0] < previous_;
        for (std::size_t k = 1; k < n; ++k) back += time[k] < time[k - 1];
        if (back > 0) [[unlikely]]
            for (std::size_t k = 0; k < n && starts_.size() < kMaxNoted; ++k)
                if (time[k] < (k == 0 ? previous_ : time[k - 1])) starts_.push_back(next_ + k);
        if (n > 0) previous_ = time[n - 1];
        next_ += n;
    }

    // The positions (ascending) where a run other than the first starts;
    // kMaxNoted of them means at least that many.
    const std::vector<std::size_t>& starts() const noexcept { return starts_; }

private:
    std::vector<std::size_t> starts_;
    std::size_t next_;
    std::int64_t previous_ = std::numeric_limits<std::int64_t>::min();
};

// Positions [first, first + count) of a time column (anything with
// operator[](std::size_t) -> std::int64_t), in ascending time; `tag` is
// passed on with each of its samples.
template <typename Column>
struct SortedRun {
    const Column* time;
    std::size_t first;
    std::size_t count;
    std::uint32_t tag;
};

// The merged order is by time, ties to the earlier run (stable, when the
// runs are listed in sample order). Of its n samples, the front part takes
// outputs [0, k) and the back part outputs [k, n), calling
// emit(output index, tag, position, time) for each (the back part from the
// last output down: it takes the last of equal times first, which gives the
// same order).
enum class MergePart { front, back };

template <MergePart kPart, typename Column, typename Emit>
void merge_runs(const std::vector<SortedRun<Column>>& runs, std::size_t k, Emit&& emit) {
    constexpr bool kBack = kPart == MergePart::back;
    struct Cursor {
        std::int64_t time;  // of the next sample to take
        std::size_t next, stop;  // stop: one step past the last sample to take
        const Column* column;
        std::uint32_t tag;
    };
    std::vector<Cursor> active;  // in run order, for the ties
    std::size_t n = 0;
    for (const auto& r : runs) {
        n += r.count;
        if (r.count == 0) continue;
        const std::size_t next = kBack ? r.first + r.count - 1 : r.first;
        const std::size_t stop = kBack ? r.first - 1 : r.first + r.count;  // wraps for a run at 0: still one step past
        active.push_back({(*r.time)[next], next, stop, r.time, r.tag});
    }
    const std::size_t outputs = kBack ? n - k : k;
    for (std::size_t j = 0; j < outputs; ++j) {
        // Which run comes next is data, not a pattern: selects without branches.
        std::size_t best = 0;
        std::int64_t best_time = active[0].time;
        for (std::size_t a = 1; a < active.size(); ++a) {
            const bool better = kBack ? active[a].time >= best_time : active[a].time < best_time;
            best = better ? a : best;
            best_time = better ? active[a].time : best_time;
        }
        Cursor& c = active[best];
        emit(kBack ? n - 1 - j : j, c.tag, c.next, best_time);
        c.next = kBack ? c.next - 1 : c.next + 1;
        if (c.next == c.stop)
            active.erase(active.begin() + static_cast<std::ptrdiff_t>(best));
        else
            c.time = (*c.column)[c.next];
    }
}

}  // namespace hashtrace::graph::detail
