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

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
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
// same order). `Column` is a BlockColumn (its blocks are read through
// pointers). At most RunStarts::kMaxNoted runs.
enum class MergePart { front, back };

template <MergePart kPart, typename Column>
class RunMerger {
public:
    static constexpr std::size_t kMaxRuns = RunStarts::kMaxNoted;

    RunMerger(const std::vector<SortedRun<Column>>& runs, std::size_t k) {
        std::size_t n = 0;
        for (const auto& r : runs) {
            n += r.count;
            if (r.count == 0) continue;
            pos_[runs_] = kBack ? r.first + r.count - 1 : r.first;
            last_[runs_] = kBack ? r.first : r.first + r.count - 1;
            column_[runs_] = r.time;
            tag_[runs_] = r.tag;
            enter_block(runs_);
            ++runs_;
        }
        left_ = kBack ? n - k : k;
        next_output_ = kBack ? n - 1 : 0;
    }

    template <typename Emit>
    void run(Emit&& emit) {
        // The scan of the runs unrolled for their number, which changes only
        // when a run ends.
        while (left_ > 0)
            [&]<std::size_t... kRuns>(std::index_sequence<kRuns...>) {
                ((runs_ == kRuns + 1 && (take<kRuns + 1>(emit), true)) || ...);
            }(std::make_index_sequence<kMaxRuns>{});
    }

private:
    static constexpr bool kBack = kPart == MergePart::back;
    static constexpr std::size_t kBlock = Column::kBlock;
    using Time = std::int64_t;

    // Emits outputs from runs_ == kRuns runs until one of them leaves its
    // block of the time column (or ends) or the part is done. The runs' next
    // times and pointers are locals that the unrolled loops index only by
    // constants, so they stay in registers; the winner's are picked up in
    // the scan, and its next time is read through its pointer, not the
    // column's index (a vector of blocks).
    template <std::size_t kRuns, typename Emit>
    void take(Emit& emit) {
        std::array<Time, kRuns> time;
        std::array<const Time*, kRuns> at, stop;
        for (std::size_t a = 0; a < kRuns; ++a) {
            time[a] = *at_[a];
            at[a] = at_[a];
            stop[a] = stop_[a];
        }
        std::size_t left = left_;
        for (;;) {
            // Which run comes next is data, not a pattern: selects without branches.
            std::size_t best = 0;
            Time best_time = time[0];
            const Time* best_at = at[0];
            const Time* best_stop = stop[0];
            for (std::size_t a = 1; a < kRuns; ++a) {
                const bool better = kBack ? time[a] >= best_time : time[a] < best_time;
                best = better ? a : best;
                best_time = better ? time[a] : best_time;
                best_at = better ? at[a] : best_at;
                best_stop = better ? stop[a] : best_stop;
            }
            emit(next_output_, tag_[best], pos_[best], best_time);
            next_output_ = kBack ? next_output_ - 1 : next_output_ + 1;
            pos_[best] = kBack ? pos_[best] - 1 : pos_[best] + 1;
            --left;
            if ((best_at == best_stop) | (left == 0)) [[unlikely]] {
                left_ = left;
                for (std::size_t a = 0; a < kRuns; ++a) at_[a] = at[a];
                if (best_at == best_stop) leave_block(best);
                return;
            }
            const Time* next = kBack ? best_at - 1 : best_at + 1;
            const Time next_time = *next;
            for (std::size_t a = 0; a < kRuns; ++a) {
                time[a] = a == best ? next_time : time[a];
                at[a] = a == best ? next : at[a];
            }
        }
    }

    // Points run r at its sample pos_[r], in whichever block holds it.
    void enter_block(std::size_t r) {
        const std::size_t block = pos_[r] / kBlock;
        const Time* first = column_[r]->block(block);
        at_[r] = first + pos_[r] % kBlock;
        // The last sample of the run in this block, in the run's direction.
        const std::size_t stop = kBack ? std::max(last_[r], block * kBlock) : std::min(last_[r], block * kBlock + kBlock - 1);
        stop_[r] = first + stop % kBlock;
    }

    // Run r took the last sample of its block (pos_[r] has moved past it):
    // on to its next block, or the run is done (the others keep their order,
    // for the ties).
    void leave_block(std::size_t r) {
        if (pos_[r] != (kBack ? last_[r] - 1 : last_[r] + 1)) {  // wraps for a run ending at 0 as pos_ does
            enter_block(r);
            return;
        }
        for (std::size_t a = r; a + 1 < runs_; ++a) {
            pos_[a] = pos_[a + 1];
            last_[a] = last_[a + 1];
            at_[a] = at_[a + 1];
            stop_[a] = stop_[a + 1];
            column_[a] = column_[a + 1];
            tag_[a] = tag_[a + 1];
        }
        --runs_;
    }

    // Per run, in run order: its next sample's position and pointer, the
    // last sample it takes in the current block, its last sample, column and tag.
    std::array<std::size_t, kMaxRuns> pos_{}, last_{};
    std::array<const Time*, kMaxRuns> at_{}, stop_{};
    std::array<const Column*, kMaxRuns> column_{};
    std::array<std::uint32_t, kMaxRuns> tag_{};
    std::size_t runs_ = 0, left_ = 0, next_output_ = 0;
};

template <MergePart kPart, typename Column, typename Emit>
void merge_runs(const std::vector<SortedRun<Column>>& runs, std::size_t k, Emit&& emit) {
    RunMerger<kPart, Column>(runs, k).run(emit);
}

}  // namespace hashtrace::graph::detail
