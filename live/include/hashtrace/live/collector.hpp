// hashtrace/live/collector.hpp - the streams of every node, linked in a
// sliding window by the same kernel as `analyze` (graph::link, then
// shard::summarize owning the part of the window that has settled: older
// than the newest sample less the margin), the settled parts merged by
// addition into the counts since the start, and the last seconds' parts
// into the window's percentiles.
//
// Thread-safe: connections feed bytes from their threads, a ticker calls
// settle(), the page reads state(); one lock for the state, not held while
// a settle links (so the readers go on reading and the page on serving), and
// one that keeps settles one at a time.
//
// Past its capacity the collector sheds: when more samples wait to be
// settled than it links in `shed_after_ns` at its measured speed, the oldest
// whole blocks of samples are dropped before linking and counted per node
// (docs/live.md, "Load shedding").
#pragma once

#include "hashtrace/critical_path/path_summary.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/live/window.hpp"
#include "hashtrace/logio/block_stream.hpp"
#include "hashtrace/shard/kernel.hpp"
#include "hashtrace/shard/summary.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::live {

struct CollectorOptions {
    std::int64_t margin_ns = 200'000'000;    // how long a sample waits before it is owned: links longer than this are reported
    std::int64_t window_ns = 10'000'000'000;  // the percentiles' and the rates' last seconds
    std::int64_t tolerance_ns = 0;            // graph::LinkOptions::tolerance_ns
    std::filesystem::path save_dir;           // non-empty: every connection's bytes as a log there
    std::size_t max_streams = 64;             // more connections at once are refused (a flood)
    std::int64_t shed_after_ns = 1'000'000'000;  // the most linking work one settle may face, at the measured speed
    std::uint64_t max_unsettled = 0;          // non-zero: this bound on waiting samples instead of the measured one
    std::uint64_t shed_floor = 100'000;       // never shed while fewer wait (their linking takes milliseconds); the speed is measured on settles of at least this many
    // The longest a connection catching up on a backlog holds the settling
    // back (after a stall, at least the stall's length): a node that lags for
    // another reason (its clock) holds nothing back for longer.
    std::int64_t catch_up_limit_ns = 1'000'000'000;
};

class Collector {
public:
    Collector(graph::AnalysisSpec spec, CollectorOptions options);
    ~Collector();

    // A new connection from `peer`; its id, or nullopt when refused (too many).
    std::optional<std::size_t> open(const std::string& peer);
    // Its next bytes. false: the connection is refused or damaged (the
    // reason is in messages()); the caller closes it and feeds no more.
    // `more_waiting`: the socket held more bytes after these (a reader
    // catching up after a stall): until it has caught up (caught_up(), or
    // its newest sample within the margin of the newest received, or
    // catch_up_limit_ns), nothing settles past this connection's newest
    // sample. A socket found empty once does not end it: the node may still
    // hold a backlog it has not sent yet.
    bool receive(std::size_t connection, std::string_view bytes, bool more_waiting = false);
    // Its reader found nothing waiting for a while (the node is idle): it holds nothing back.
    void caught_up(std::size_t connection);
    void close(std::size_t connection);

    // Links and summarises the part of the window that settled since the last call.
    void settle();
    // Settles everything received, the margin too: the end of a run (later
    // samples are late ones). The counts are then those of `analyze` on the saved logs.
    void finish();
    // GET /api/state (docs/live.md).
    nlohmann::ordered_json state() const;
    // Writes the last `seconds` as one log per connection into `dir`; the files written.
    std::vector<std::filesystem::path> save_recent(const std::filesystem::path& dir, double seconds) const;

private:
    struct Connection;
    struct Slice;   // what one settle links: the range and the logs, taken under the lock
    struct Linked;  // what linking it gave, merged under the lock
    struct NodeTotals {
        std::uint64_t dropped = 0, stream_dropped = 0, shed = 0, connections = 0;
        bool connected = false;
    };
    void settle_step(bool everything);   // settle() and finish(): the slice taken, linked unlocked, merged
    std::optional<Slice> take_slice(std::int64_t settle_to);  // with the lock held
    Linked link_slice(const Slice& slice);                     // without it
    void merge_linked(const Slice& slice, Linked linked);      // with it
    std::int64_t watermark_ns(std::int64_t now) const;  // the newest sample time that every connection catching up has reached
    void notice_stall();                 // with the lock held: a long gap between settles
    void shed_excess(std::int64_t settle_to);  // with the lock held: the load shedding rule
    void apply_clocks(const std::vector<std::pair<std::pair<std::string, std::string>, std::int64_t>>& offsets);
    void keep_recent(shard::ShardSummary part, std::vector<critical_path::IntervalPathSummary> paths, std::int64_t settle_to);
    void accept_header(Connection& c);
    void take_block(Connection& c, logio::StreamBlock block);
    void refuse(Connection& c, const std::string& why);
    void say(const std::string& message);  // into messages(), the last few kept
    void record_losses(const std::vector<std::size_t>& streams, const std::vector<logio::ReadReport>& reports);
    nlohmann::ordered_json nodes_json() const;
    nlohmann::ordered_json links_json() const;
    nlohmann::ordered_json intervals_json() const;

    graph::AnalysisSpec spec_;
    CollectorOptions options_;
    mutable std::mutex mutex_;
    std::map<std::size_t, std::unique_ptr<Connection>> connections_;
    std::size_t next_id_ = 0;
    Window window_;
    std::int64_t origin_ns_ = INT64_MIN;   // the first sample time seen
    // origin_ns_ when the first slice was taken: every summary's time bins
    // start there, since summaries binned alike are the only ones that add up
    // (a node whose first block comes later may hold older samples).
    std::int64_t bins_origin_ns_ = INT64_MIN;
    std::int64_t settled_ns_ = INT64_MIN;  // everything before this is owned by a summary
    std::int64_t last_estimate_ns_ = INT64_MIN / 2;  // when the clocks were last estimated (settled time)
    std::optional<shard::ShardSummary> total_;
    std::deque<shard::ShardSummary> recent_;  // the settled parts of the last window_ns
    std::optional<shard::ShardSummary> recent_merged_;
    // The critical paths of the intervals owned by each part of recent_
    // (alike, by their `from` samples), and their tables over the window.
    std::vector<const graph::IntervalSpec*> intervals_;
    std::deque<std::vector<critical_path::IntervalPathSummary>> recent_paths_;
    std::vector<critical_path::IntervalCriticalPath> recent_path_tables_;
    std::map<std::size_t, std::pair<std::uint64_t, std::uint64_t>> losses_;  // connection -> (dropped in the node, lost by the stream)
    std::map<std::pair<std::string, std::string>, std::int64_t> offsets_;  // (node, instance) -> clock offset, the latest estimate
    std::uint64_t late_samples_ = 0, refused_ = 0;
    std::int64_t last_settle_wall_ns_ = INT64_MIN;  // when the last settle began (steady clock), for notice_stall
    std::mutex settling_;                          // one settle at a time
    std::int64_t settling_to_ = INT64_MIN;         // a settle in flight owns everything before this
    double linked_samples_ = 0, linked_seconds_ = 0;  // the measured linking speed (smoothed); 0: not yet measured
    std::map<std::size_t, std::uint64_t> shed_;    // connection -> samples shed
    std::uint64_t shed_total_ = 0;
    bool shedding_ = false;                        // the last settle shed
    std::deque<std::string> messages_;
};

}  // namespace hashtrace::live
