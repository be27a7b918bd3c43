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

namespace hashtrace::live {
namespace {

// The summaries' time bins span this much from the first sample: far past
// any session, so a bin's width is never zero and no part ends the run early.
constexpr std::int64_t kBinnedSpanNs = std::int64_t{1'000'000} * 1'000'000'000;
constexpr std::int64_t kEstimateEveryNs = 1'000'000'000;

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

}  // namespace

void Collector::record_losses(const std::vector<std::size_t>& streams, const std::vector<logio::ReadReport>& reports) {
    // Every log holds its stream's blocks of records whole, so its report's drops and losses are the stream's totals.
    for (std::size_t k = 0; k < streams.size() && k < reports.size(); ++k)
        losses_[streams[k]] = {reports[k].dropped_samples, reports[k].lost_samples};
}

// The clock-from-edges estimator of `clock estimate`, on the linked window:
// each placed instance's offset from the reference (the instance with the most messages).
void Collector::estimate_clocks(const graph::SampleSet& samples, const graph::Graph& graph) {
    try {
        const clock_analysis::TimeBase base = clock_analysis::estimate_from_graph(samples, graph, std::nullopt);
        for (const clock_analysis::InstanceClock& c : base.clocks) {
            const graph::Instance& i = samples.instances[c.instance];
            if (c.placed && c.offset_ns) offsets_[{i.node_name, i.instance}] = static_cast<std::int64_t>(std::llround(*c.offset_ns));
        }
    } catch (const std::exception&) {
        // A window without messages both ways places nobody: the estimates of earlier windows stay.
    }
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
// while a connection has bytes waiting, nothing settles past its newest
// sample; a connection with nothing waiting (idle, or caught up) holds
// nothing back.
std::int64_t Collector::watermark_ns() const {
    std::int64_t mark = window_.newest_ns();
    for (const auto& [id, c] : connections_)
        if (c->open && c->backlog && c->newest_ns != INT64_MIN) mark = std::min(mark, c->newest_ns);
    return mark;
}

// A second or more since the last settle (its ticker runs several times a
// second): the collector was stopped or starved, and every connection may
// have a backlog its reader has not seen yet. Each counts as catching up
// until its reader says it has nothing waiting.
void Collector::notice_stall() {
    constexpr std::int64_t kStallNs = 1'000'000'000;
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    if (last_settle_wall_ns_ != INT64_MIN && now - last_settle_wall_ns_ > kStallNs)
        for (auto& [id, c] : connections_)
            if (c->open) c->backlog = true;
    last_settle_wall_ns_ = now;
}

void Collector::settle() {
    std::lock_guard lock(mutex_);
    notice_stall();
    if (window_.newest_ns() != INT64_MIN) settle_or_skip(watermark_ns() - options_.margin_ns);
}

void Collector::finish() {
    std::lock_guard lock(mutex_);
    if (window_.newest_ns() != INT64_MIN) settle_or_skip(window_.newest_ns() + 1);
}

// A slice that cannot be linked (a block whose checksum held but whose
// records do not decode, the spec refusing the samples) is said and passed
// over: the collector goes on with the next one rather than stop.
void Collector::settle_or_skip(std::int64_t settle_to) {
    try {
        settle_until(settle_to);
    } catch (const std::exception& e) {
        say(std::string("samples before ") + std::to_string(settle_to) + " ns not counted: " + e.what());
        settled_ns_ = std::max(settled_ns_, settle_to);
    }
}

void Collector::settle_until(std::int64_t settle_to) {
    if (settled_ns_ == INT64_MIN) settled_ns_ = origin_ns_;
    if (settle_to <= settled_ns_) return;

    const shard::ShardWindow w{settled_ns_, settle_to, origin_ns_, origin_ns_ + kBinnedSpanNs, options_.margin_ns};
    graph::LoadOptions load;
    load.from_ns = w.read_from_ns();
    load.to_ns = w.read_to_ns(options_.tolerance_ns);
    load.threads = 1;
    load.lenient = true;  // a malformed record is skipped and counted by the reader, not the whole window lost
    const std::vector<std::size_t> streams = window_.streams();
    const graph::SampleSet samples = graph::load_samples_from_memory(window_.logs(load.from_ns), load);
    graph::LinkOptions link;
    link.tolerance_ns = options_.tolerance_ns;
    link.threads = 1;
    const graph::Graph graph = graph::link(samples, spec_, link);
    metrics::MetricOptions measure;
    measure.threads = 1;
    shard::ShardSummary part = shard::summarize(samples, graph, spec_, w, measure);
    // The estimator costs about a third of the linking: once a second of samples is enough for a view.
    if (settle_to - last_estimate_ns_ >= kEstimateEveryNs || settle_to > window_.newest_ns()) {
        estimate_clocks(samples, graph);
        last_estimate_ns_ = settle_to;
    }

    std::vector<logio::ReadReport> reports;
    for (const graph::SourceFile& f : samples.files) reports.push_back(f.report);
    record_losses(streams, reports);

    // The critical paths of the interval instances this part owns, as the sharded `critical-path` walks a shard's.
    auto paths = intervals_.empty() ? std::vector<critical_path::IntervalPathSummary>{}
                                    : critical_path::summarize_window_paths(samples, graph, intervals_, w.own_from_ns, w.own_to_ns, 1);
    keep_recent(std::move(part), std::move(paths), settle_to);
    settled_ns_ = settle_to;
    window_.forget_before(settle_to - options_.window_ns - options_.margin_ns);
}

}  // namespace hashtrace::live
