// Collector::settle: the linking of the window, by analyze's kernel.
#include "hashtrace/live/collector.hpp"

#include "connection.hpp"

#include "hashtrace/clock_analysis/edge_estimate.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/shard/kernel.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace hashtrace::live {
namespace {

// The summaries' time bins span this much from the first sample: far past
// any session, so a bin's width is never zero and no part ends the run early.
constexpr std::int64_t kBinnedSpanNs = std::int64_t{1'000'000} * 1'000'000'000;
constexpr std::int64_t kEstimateEveryNs = 1'000'000'000;

using Offsets = std::vector<std::pair<std::pair<std::string, std::string>, std::int64_t>>;

shard::ShardSummary merged(const std::deque<shard::ShardSummary>& parts) {
    shard::ShardSummary out = parts.front();
    for (std::size_t k = 1; k < parts.size(); ++k) out.append(parts[k]);
    return out;
}

std::vector<critical_path::IntervalCriticalPath> path_tables(const std::deque<std::vector<critical_path::IntervalPathSummary>>& parts) {
    std::vector<critical_path::IntervalPathSummary> merged = parts.front();
    for (std::size_t k = 1; k < parts.size(); ++k) critical_path::append_paths(merged, parts[k]);
    return critical_path::path_tables(merged);
}

// The clock-from-edges estimator of `clock estimate`, on the linked slice:
// each placed instance's offset from the reference (the instance with the most messages).
Offsets estimate_clocks(const graph::SampleSet& samples, const graph::Graph& graph) {
    Offsets out;
    try {
        const clock_analysis::TimeBase base = clock_analysis::estimate_from_graph(samples, graph, std::nullopt);
        for (const clock_analysis::InstanceClock& c : base.clocks) {
            const graph::Instance& i = samples.instances[c.instance];
            if (c.placed && c.offset_ns) out.push_back({{i.node_name, i.instance}, static_cast<std::int64_t>(std::llround(*c.offset_ns))});
        }
    } catch (const std::exception&) {
        // A window without messages both ways places nobody: the estimates of earlier windows stay.
    }
    return out;
}

}  // namespace

void Collector::apply_clocks(const Offsets& offsets) {
    for (const auto& [key, offset] : offsets) offsets_[key] = offset;
}

void Collector::record_losses(const std::vector<std::size_t>& streams, const std::vector<logio::ReadReport>& reports) {
    // Every log holds its stream's blocks of records whole, so its report's drops and losses are the stream's totals.
    for (std::size_t k = 0; k < streams.size() && k < reports.size(); ++k)
        losses_[streams[k]] = {reports[k].dropped_samples, reports[k].lost_samples};
}

// The part joins the counts since the start and the window's; parts older than the window leave it.
void Collector::keep_recent(shard::ShardSummary part, std::vector<critical_path::IntervalPathSummary> paths, std::int64_t settle_to) {
    if (total_) total_->append(part);
    else total_ = part;
    recent_.push_back(std::move(part));
    recent_paths_.push_back(std::move(paths));
    while (recent_.size() > 1 && recent_.front().own_to_ns < settle_to - options_.window_ns) {
        recent_.pop_front();
        recent_paths_.pop_front();
    }
    recent_merged_ = merged(recent_);
    if (!intervals_.empty()) recent_path_tables_ = path_tables(recent_paths_);
}

// After a stall (the collector stopped or starved), the first connection
// read again would move the newest sample far ahead of the others' unread
// backlogs, and their samples would arrive after their time settled. So
// while a connection catches up, nothing settles past its newest sample. It
// catches up until its reader finds nothing waiting for a while (an idle
// node holds nothing back), its newest sample is within the margin of the
// newest received (the settling, a margin behind that, cannot pass it), or the
// limit passes (a node that lags for another reason, its clock, holds the
// view back no longer than that).
std::int64_t Collector::watermark_ns(std::int64_t now) const {
    const std::int64_t newest = window_.newest_ns();
    std::int64_t mark = newest;
    for (const auto& [id, c] : connections_)
        if (c->open && now < c->catching_up_until_ns && c->newest_ns != INT64_MIN && c->newest_ns < newest - options_.margin_ns)
            mark = std::min(mark, c->newest_ns);
    return mark;
}

// A second or more since the last settle began (its ticker starts one
// several times a second): the collector was stopped or starved, and every
// connection may have a backlog its reader has not seen yet, as long as the
// stall at most. Each counts as catching up until the watermark's rule says
// it is not. Counted from the start, since a stop that caught a settle while
// it linked ends with that settle, not before the next; a settle that only
// took long (the readers read on meanwhile) leaves every connection within
// the margin of the newest, and so holding nothing back.
void Collector::notice_stall() {
    constexpr std::int64_t kStallNs = 1'000'000'000;
    const std::int64_t now = steady_now_ns();
    if (last_settle_wall_ns_ != INT64_MIN && now - last_settle_wall_ns_ > kStallNs) {
        const std::int64_t until = now + std::max(options_.catch_up_limit_ns, now - last_settle_wall_ns_);
        for (auto& [id, c] : connections_)
            if (c->open) c->catching_up_until_ns = std::max(c->catching_up_until_ns, until);
    }
    last_settle_wall_ns_ = now;
}

void Collector::settle() { settle_step(false); }
void Collector::finish() { settle_step(true); }

// What one settle links: its range and the shard window, the logs of the
// blocks reaching into it (copied, so the readers go on adding), and which
// stream each log is.
struct Collector::Slice {
    std::int64_t settle_to = 0;
    shard::ShardWindow window;
    graph::LoadOptions load;
    Window::Logs logs;
    std::vector<std::size_t> streams;
    bool estimate = false;  // the clocks are estimated on this slice
};

struct Collector::Linked {
    std::optional<std::string> error;  // the slice could not be linked: said, passed over
    shard::ShardSummary part;
    std::vector<critical_path::IntervalPathSummary> paths;
    std::vector<logio::ReadReport> reports;
    std::vector<std::pair<std::pair<std::string, std::string>, std::int64_t>> offsets;
    std::uint64_t owned = 0;  // samples the part owns
    double seconds = 0;       // the wall time linking took
};

// The lock is held to take the slice and to merge what it gave, not while
// linking: the readers keep reading (and the load shedding sees what waits),
// and the page keeps being served.
void Collector::settle_step(bool everything) {
    std::lock_guard one_at_a_time(settling_);
    std::optional<Slice> slice;
    {
        std::lock_guard lock(mutex_);
        if (!everything) notice_stall();
        if (window_.newest_ns() == INT64_MIN) return;
        const std::int64_t settle_to = everything ? window_.newest_ns() + 1 : watermark_ns(steady_now_ns()) - options_.margin_ns;
        if (!everything) shed_excess(settle_to);
        slice = take_slice(settle_to);
    }
    if (!slice) return;
    Linked linked = link_slice(*slice);
    std::lock_guard lock(mutex_);
    merge_linked(*slice, std::move(linked));
}

// Load shedding: this settle would link more samples than the collector
// links in shed_after_ns at its measured speed (or than max_unsettled): the
// oldest unsettled blocks go, counted.
void Collector::shed_excess(std::int64_t settle_to) {
    shedding_ = false;
    const std::int64_t from = std::max(settled_ns_, origin_ns_);
    std::uint64_t bound = options_.max_unsettled;
    if (bound == 0 && linked_samples_ == 0) return;  // the speed is not measured yet
    if (bound == 0)
        bound = std::max(options_.shed_floor, static_cast<std::uint64_t>(double(options_.shed_after_ns) * 1e-9 * linked_samples_ / linked_seconds_));
    const std::uint64_t waiting = window_.samples_in(from, settle_to);
    if (waiting <= bound) return;
    std::uint64_t shed = 0;
    for (const auto& [stream, samples] : window_.shed(from, waiting - bound)) {
        shed_[stream] += samples;
        shed += samples;
    }
    shed_total_ += shed;
    shedding_ = shed > 0;
}

std::optional<Collector::Slice> Collector::take_slice(std::int64_t settle_to) {
    if (settled_ns_ == INT64_MIN) settled_ns_ = bins_origin_ns_ = origin_ns_;
    if (settle_to <= settled_ns_) return std::nullopt;
    Slice s;
    s.settle_to = settle_to;
    s.window = {settled_ns_, settle_to, bins_origin_ns_, bins_origin_ns_ + kBinnedSpanNs, options_.margin_ns};
    s.load.from_ns = s.window.read_from_ns();
    s.load.to_ns = s.window.read_to_ns(options_.tolerance_ns);
    s.load.threads = 1;
    s.load.lenient = true;  // a malformed record is skipped and counted by the reader, not the whole window lost
    s.logs = window_.logs(s.load.from_ns);
    s.streams = window_.streams();
    // The estimator costs about a third of the linking: once a second of samples is enough for a view.
    s.estimate = settle_to - last_estimate_ns_ >= kEstimateEveryNs || settle_to > window_.newest_ns();
    if (s.estimate) last_estimate_ns_ = settle_to;
    settling_to_ = settle_to;  // a block arriving meanwhile with older samples comes late
    return s;
}

Collector::Linked Collector::link_slice(const Slice& slice) {
    const auto started = std::chrono::steady_clock::now();
    Linked out;
    try {
        const graph::SampleSet samples = graph::load_samples_from_memory(slice.logs, slice.load);
        graph::LinkOptions link;
        link.tolerance_ns = options_.tolerance_ns;
        link.threads = 1;
        const graph::Graph graph = graph::link(samples, spec_, link);
        metrics::MetricOptions measure;
        measure.threads = 1;
        out.part = shard::summarize(samples, graph, spec_, slice.window, measure);
        if (slice.estimate) out.offsets = estimate_clocks(samples, graph);
        for (const graph::SourceFile& f : samples.files) out.reports.push_back(f.report);
        // The critical paths of the interval instances this part owns, as the sharded `critical-path` walks a shard's.
        if (!intervals_.empty())
            out.paths = critical_path::summarize_window_paths(samples, graph, intervals_, slice.window.own_from_ns, slice.window.own_to_ns, 1);
        for (const auto& [key, counts] : out.part.instances) out.owned += counts.samples;
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return out;
}

// A slice that cannot be linked (a block whose checksum held but whose
// records do not decode, the spec refusing the samples) is said and passed
// over: the collector goes on with the next one rather than stop.
void Collector::merge_linked(const Slice& slice, Linked linked) {
    settled_ns_ = std::max(settled_ns_, slice.settle_to);
    if (linked.error) {
        say(std::string("samples before ") + std::to_string(slice.settle_to) + " ns not counted: " + *linked.error);
        return;
    }
    apply_clocks(linked.offsets);
    record_losses(slice.streams, linked.reports);
    // The speed the load shedding assumes: samples over seconds, both smoothed
    // over the last settles large enough that the per-settle costs do not count.
    if (linked.owned > 0 && linked.owned >= options_.shed_floor) {
        const bool first = linked_samples_ == 0;
        linked_samples_ = first ? double(linked.owned) : 0.8 * linked_samples_ + 0.2 * double(linked.owned);
        linked_seconds_ = first ? linked.seconds : 0.8 * linked_seconds_ + 0.2 * linked.seconds;
    }
    try {
        keep_recent(std::move(linked.part), std::move(linked.paths), slice.settle_to);
    } catch (const std::invalid_argument& e) {  // a part that does not add up with the others: said, never a crash
        say(std::string("samples before ") + std::to_string(slice.settle_to) + " ns not counted: " + e.what());
    }
    window_.forget_before(slice.settle_to - options_.window_ns - options_.margin_ns);
}

}  // namespace hashtrace::live
