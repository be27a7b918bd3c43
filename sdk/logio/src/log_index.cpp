// index_log: where a log's samples lie in time, from one pass through it
// that passes over the blocks of samples only of a version-3 log (their
// headers give their spans) and checks every block (docs/log-formats.md).
#include "hashtrace/logio/log_index.hpp"

#include "parsers.hpp"

#include <algorithm>
#include <limits>
#include <span>

namespace hashtrace::logio {
namespace {

// Each batch the parser delivers becomes a span: its times only, read from
// the columns (no hash is looked at); each block the parser passes over, the
// span its header gives.
class Indexer final : public LogVisitor {
public:
    explicit Indexer(LogIndex& index) : index_(index) {}
    void on_header(const LogHeader& h) override { index_.header = h; }
    bool wants_columns() const override { return true; }
    void on_sample_columns(const SampleColumns& c) override { add(std::span<const std::int64_t>(c.time_ns.data(), c.size), [](std::int64_t t) { return t; }); }
    void on_samples(std::span<const SampleRecord> batch) override { add(batch, [](const SampleRecord& r) { return r.time_ns; }); }
    void on_block(std::int64_t min_ns, std::int64_t max_ns, std::uint32_t samples, std::uint64_t at, std::uint64_t end) {
        if (samples) add({min_ns, max_ns, samples, at, end});
    }

private:
    template <typename T, typename Time>
    void add(std::span<const T> batch, Time time) {
        if (batch.empty()) return;
        TimeSpan span{time(batch[0]), time(batch[0]), batch.size()};
        for (const T& x : batch) {
            span.min_ns = std::min(span.min_ns, time(x));
            span.max_ns = std::max(span.max_ns, time(x));
        }
        add(span);
    }
    void add(const TimeSpan& span) {
        index_.min_ns = index_.samples ? std::min(index_.min_ns, span.min_ns) : span.min_ns;
        index_.max_ns = index_.samples ? std::max(index_.max_ns, span.max_ns) : span.max_ns;
        index_.samples += span.samples;
        index_.spans.push_back(span);
    }
    LogIndex& index_;
};

}  // namespace

namespace {

// One pass through the log: passing over the blocks of samples only, or decoding every block.
LogIndex index_pass(const std::filesystem::path& file, const ReadOptions& options, bool pass_over) {
    LogIndex index;
    index.path = file.string();
    Indexer indexer(index);
    ReadOptions whole = options;
    whole.from_ns = std::numeric_limits<std::int64_t>::min();
    whole.to_ns = std::numeric_limits<std::int64_t>::max();
    const parsers::BlockSkipped on_block = [&indexer](std::int64_t min_ns, std::int64_t max_ns, std::uint32_t samples, std::uint64_t at,
                                                      std::uint64_t end) { indexer.on_block(min_ns, max_ns, samples, at, end); };
    index.report = parsers::read_file(file, indexer, whole, pass_over ? on_block : nullptr);
    index.report.samples = index.samples;  // those of the blocks passed over too, as a whole read counts them
    return index;
}

}  // namespace

LogIndex index_log(const std::filesystem::path& file, const ReadOptions& options) {
    LogIndex index = index_pass(file, options, true);
    // A damaged block skipped (lenient) may have defined the tracepoints or
    // threads that the blocks passed over use: their samples are then bad
    // records too, which only decoding them finds, as a whole read does.
    if (index.report.bad_records > 0) index = index_pass(file, options, false);
    return index;
}

std::vector<ByteJump> jumps_outside(const LogIndex& index, std::int64_t from_ns, std::int64_t to_ns) {
    std::vector<ByteJump> jumps;
    for (const TimeSpan& s : index.spans) {
        const bool passable = s.end > s.at && (s.max_ns < from_ns || s.min_ns >= to_ns);
        if (!passable) continue;
        if (!jumps.empty() && jumps.back().to == s.at) jumps.back().to = s.end;  // adjacent: one jump
        else jumps.push_back({s.at, s.end});
    }
    return jumps;
}

}  // namespace hashtrace::logio
