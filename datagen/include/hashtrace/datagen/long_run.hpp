// hashtrace/datagen/long_run.hpp - synthetic multi-node runs of any length
// with a known answer, for the tests and benchmarks of the time-sharded
// analysis (docs/sharding.md).
//
//   hashtrace::datagen::LongRunOptions o;
//   o.samples = 50'000'000;
//   auto truth = hashtrace::datagen::write_long_run("run/", o);  // run/*.htlog, spec.toml, truth.json
//
// The system, the same for every length and seed (docs/spec.md sections 3-5):
//
//   Source: Tick (loop counter: Tick -> Tick, Tick -> Send, local)
//     -> Stage1 .. StageS (Receive -> Send, local; S = nodes - 5; a pipeline)
//     -> Router: Receive -> Forward, Receive -> Note (local)
//     -> Forward fans out to Workers/Dispatch and Mirror/Receive
//     -> Workers: Dispatch (thread 0) -> Work (thread 1 or 2: a queue of two workers)
//     -> Sink/Join, fed by Workers/Work and by Router/Note (fan-in: one hash, two sources)
//
// Every arrow is a [[pair]] of the spec written beside the logs, and one
// edge per message (the Tick -> Tick chain one fewer). Hash values come back
// (message ids modulo message_id_period, the loop counter modulo
// loop_counter_period), so linking's "latest producer from the same source"
// (docs/spec.md section 4, rule 5) decides every link of a long run; the
// periods are chosen longer than any message's journey, so it always decides
// for the true producer. Each node's clock is off by a fixed amount, and a
// message's true transit is never shorter than the clocks' disagreement on
// its link, so every message links under linking tolerance 0: the truth's
// edge counts are what `hashtrace analyze --spec spec.toml` finds.
//
// Memory: samples are made in time order a slice of simulated time at a
// time and written as their slice closes, so what is held is the messages
// in flight (the rate times the longest journey) and the writers' buffers
// (about 1 MB a node), whatever the length.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hashtrace::datagen {

struct LongRunOptions {
    std::uint64_t samples = 1'000'000;  // about this many in total (whole messages: rounded up)...
    double seconds = 0;                  // ...or, when > 0, this much simulated time instead
    unsigned nodes = 10;                 // 5 to 1000: Source, Router, Workers, Mirror, Sink and nodes - 5 stages
    double rate_per_s = 200'000;         // samples a second of simulated time, all nodes, outside bursts
    std::uint64_t seed = 1;
    double max_clock_offset_ms = 0.5;    // each node's clock is off by a fixed amount in [-this, this]
    bool bursts = true;                  // once a second, 50-200 ms at four times the rate
    // Near- and beyond-margin waits are put on the links whose wait makes
    // no other edge longer: the hops into the stages and the router, and
    // Router/Forward -> Mirror/Receive. Each message waits long on one at most.
    //
    // Messages whose wait on one link is just under near_margin_ms (in
    // [0.98, 1) of it), a near_margin_fraction of them; 0: none.
    double near_margin_ms = 0;
    double near_margin_fraction = 0.001;
    // beyond_margin_count messages, spread evenly over the run, whose wait on
    // one link is longer than beyond_margin_ms (1.05 to 1.5 times it), which
    // must be longer than every other link of the run (checked).
    std::uint64_t beyond_margin_count = 0;
    double beyond_margin_ms = 0;
};

// One [[pair]] of the spec and the edges the run holds of it.
struct LinkTruth {
    std::string from, to;          // "node/tracepoint"
    bool message = false;          // a message edge (docs/spec.md section 5), else local
    std::uint64_t edges = 0;
    std::uint64_t near_margin = 0;    // edges delayed to just under near_margin_ms
    std::uint64_t beyond_margin = 0;  // edges delayed beyond beyond_margin_ms
    std::int64_t longest_ns = 0;      // the longest edge, as the logs' times say
};

struct NodeTruth {
    std::string name, instance, file;  // file: its log's name in the run's directory
    std::int64_t clock_offset_ns = 0;  // added to every time it wrote
    std::uint64_t samples = 0;
};

struct IntervalTruth {
    std::string name, kind, from, to;  // the spec's [[interval]]
    std::uint64_t count = 0;           // what analyze reports as its count
};

// A message delayed beyond the margin: the edge from -> to, its producer's
// time and its length, as the logs' times say.
struct Injection {
    std::string from, to;
    std::int64_t sent_ns = 0;
    std::int64_t latency_ns = 0;
};

struct LongRunTruth {
    LongRunOptions options;
    std::uint64_t samples = 0, bytes = 0, messages = 0;
    std::int64_t first_time_ns = 0, last_time_ns = 0;  // the first and last sample as written
    // docs/spec.md section 5b, as `analyze --json` reports them.
    std::uint64_t edges = 0, message_edges = 0, local_edges = 0;
    std::uint64_t unlinked_inputs = 0, unconsumed_outputs = 0;
    std::uint64_t message_id_period = 0, loop_counter_period = 0;  // how often a hash value comes back
    std::int64_t longest_ordinary_edge_ns = 0;  // the longest edge that is not a beyond-margin injection
    std::vector<NodeTruth> nodes;
    std::vector<LinkTruth> links;
    std::vector<IntervalTruth> intervals;
    std::vector<Injection> beyond_margin;  // one per injected message, in time order

    std::string json() const;
};

// Writes the run into `dir` (created; its logs, spec.toml and truth.json
// overwritten): one binary log per node, the spec and the truth. Throws
// std::invalid_argument for options out of range, with the reason.
LongRunTruth write_long_run(const std::filesystem::path& dir, const LongRunOptions& options);

// The spec of the run `options` describe (TOML, docs/spec.md section 3), as
// write_long_run writes it to spec.toml.
std::string long_run_spec(const LongRunOptions& options);

}  // namespace hashtrace::datagen
