// The placement reads each chunk's columns through a ChunkReader and writes
// every output column once, in its final place.
#include "placement.hpp"

#include "time_order.hpp"
#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace hashtrace::graph::detail {
namespace {

// A chunk's sample columns, read through pointers into the block holding
// the position read last, so that a sample costs a load a column rather than
// a walk through each column's vector of blocks: a sorted run's positions
// move by one, and cross a block only every kBlock samples.
class ChunkReader {
public:
    explicit ChunkReader(const ChunkColumns& c) : c_(c) {}

    // Writes the chunk's sample `at` to output i.
    [[gnu::always_inline]] void place(SampleSet& out, std::size_t i, std::size_t at, std::int64_t time) {
        std::size_t k = at - first_;  // (wraps below first_)
        if (k >= kBlock) [[unlikely]] {
            enter(at);
            k = at - first_;
        }
        out.time_ns[i] = time;
        out.input[i] = c_.hash_map[input_[k] + 1];  // kNoHash wraps to 0, which maps to itself
        out.output[i] = c_.hash_map[output_[k] + 1];
        out.tracepoint[i] = c_.tracepoint_map[tracepoint_[k]];
        out.thread[i] = thread_[k];
    }

private:
    static constexpr std::size_t kBlock = BlockColumn<HashId>::kBlock;
    static_assert(BlockColumn<TracepointId>::kBlock == kBlock && BlockColumn<std::uint32_t>::kBlock == kBlock,
                  "one block index for the four columns");

    void enter(std::size_t at) {
        const std::size_t b = at / kBlock;
        first_ = b * kBlock;
        input_ = c_.chunk->input.block(b);
        output_ = c_.chunk->output.block(b);
        tracepoint_ = c_.chunk->tracepoint.block(b);
        thread_ = c_.chunk->thread.block(b);
    }

    ChunkColumns c_;
    std::size_t first_ = std::numeric_limits<std::size_t>::max() - kBlock;  // no block yet: every k is out of range
    const HashId *input_ = nullptr, *output_ = nullptr;
    const TracepointId* tracepoint_ = nullptr;
    const std::uint32_t* thread_ = nullptr;
};

}  // namespace

// Writes every sample to its place in `out` in time order (ties in file
// order), each output once, from two threads: files in time order, or
// nearly (a few sorted runs), are merged; others are sorted in a copy. Each
// thread reads a run (or a file) through a reader of its own.
void place_in_time_order(const std::vector<Chunk>& chunks, const std::vector<ParsedFile>& files, std::size_t total,
                         const std::vector<ChunkColumns>& columns, SampleSet& out) {
    using Run = SortedRun<BlockColumn<std::int64_t>>;
    constexpr std::size_t kMaxRunsToMerge = RunStarts::kMaxNoted;  // each output compares every run's next time
    std::vector<Run> runs;
    std::vector<std::size_t> chunk_of_run;
    for (std::size_t i = 0; i < files.size() && runs.size() <= kMaxRunsToMerge; ++i) {
        const ParsedFile& f = files[i];
        const std::size_t end = f.first + f.meta.sample_count;
        std::size_t start = f.first;
        auto add_run = [&](std::size_t to) {
            runs.push_back({&chunks[f.chunk].time, start, to - start, static_cast<std::uint32_t>(runs.size())});
            chunk_of_run.push_back(f.chunk);
            start = to;
        };
        for (const std::size_t next : f.runs.starts()) add_run(next);
        if (start < end) add_run(end);
    }
    auto readers = [&](const std::vector<std::size_t>& chunk_of) {
        std::vector<ChunkReader> r;
        for (const std::size_t c : chunk_of) r.emplace_back(columns[c]);
        return r;
    };
    if (runs.size() <= kMaxRunsToMerge) {
        auto merge_part = [&]<MergePart kPart>() {
            std::vector<ChunkReader> reader = readers(chunk_of_run);
            // Always inlined: the merge has a loop for each number of runs,
            // and the compiler stopped inlining this into them (a call an output).
            merge_runs<kPart>(runs, total / 2, [&](std::size_t i, std::uint32_t run, std::size_t at, std::int64_t time)
                                                           __attribute__((always_inline)) { reader[run].place(out, i, at, time); });
        };
        graph::parallel::both([&] { merge_part.template operator()<MergePart::front>(); },
                    [&] { merge_part.template operator()<MergePart::back>(); });
        return;
    }
    Column<std::int64_t> file_time(total);
    std::vector<std::size_t> file_start, chunk_of_file;  // of each file in file_time; its chunk
    std::int64_t* dst = file_time.data();
    for (const ParsedFile& f : files) {
        file_start.push_back(static_cast<std::size_t>(dst - file_time.data()));
        chunk_of_file.push_back(f.chunk);
        chunks[f.chunk].time.for_each_span(f.first, f.meta.sample_count, [&](const std::int64_t* src, std::size_t n) {
            dst = std::copy(src, src + n, dst);
        });
    }
    const Column<SampleIndex> order = time_order(file_time);
    auto take = [&](std::size_t from, std::size_t to) {
        std::vector<ChunkReader> reader = readers(chunk_of_file);
        for (std::size_t i = from; i < to; ++i) {
            const std::size_t f = static_cast<std::size_t>(std::upper_bound(file_start.begin(), file_start.end(), order[i]) - file_start.begin()) - 1;
            reader[f].place(out, i, files[f].first + (order[i] - file_start[f]), file_time[order[i]]);
        }
    };
    graph::parallel::both([&] { take(0, total / 2); }, [&] { take(total / 2, total); });
}

}  // namespace hashtrace::graph::detail
