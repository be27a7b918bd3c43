// hashtrace/infer/evidence.hpp - structure recovery, step 1: which tracepoint
// pairs of a run really link, from the spec-less graph alone.
//
//   auto specless = graph::link(samples, graph::AnalysisSpec{});   // every pair may link
//   auto found = infer::gather_evidence(samples, specless);        // candidate pairs, kept or rejected
//   auto chains = infer::recover_chains(found);                    // chains.hpp
//
// A candidate pair is a (producer tracepoint, consumer tracepoint) that the
// spec-less graph links at least once; a tracepoint is "node/tracepoint", all
// instances together, as a spec's selectors name it. Each pair is kept or
// rejected by evidence from all samples (docs/infer.md), and a kept pair gets the scope its links show. Pure: no clock, no disk.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::infer {

using ClassId = std::uint32_t;  // a tracepoint as a spec names it: node name + tracepoint name

struct TracepointClass {
    std::string node;
    std::string tracepoint;
    std::string input_label;   // the logs' input_hash_type ("" when none)
    std::string output_label;  // output_hash_type
    std::uint64_t samples = 0;
    std::uint64_t inputs = 0;   // samples with an input hash
    std::uint64_t outputs = 0;  // samples with an output hash
    std::uint64_t passthrough = 0;  // samples whose input equals their output (the value is passed on, not made)
    std::string selector() const { return node + "/" + tracepoint; }
};

// Why a candidate pair is not written as a [[pair]] (kept = it is).
enum class Verdict {
    kept,
    rare,            // few links relative to both tracepoints' samples
    repeated,        // a pass-through linked to itself: the same value seen again (hash reuse)
    label_mismatch,  // the hash labels differ where the tracepoints' other links agree (overlapping id spaces)
    spread,          // latencies spread over the whole run: values meet by coincidence
    reversed,        // the same values also flow the other way (happened-before contradicted)
    sibling,         // the producer and the consumer are both fed by a third: one only saw the value first
    shortcut,        // its links are also reached through other pairs (a value passed on unchanged)
    outcompeted,     // the same consumers are explained better by another producer (hypothesis elimination)
};
std::string_view to_string(Verdict);

struct PairEvidence {
    ClassId from = 0, to = 0;
    std::uint64_t links = 0;          // spec-less links of this pair
    std::uint64_t same_instance = 0;  // of them, within one node instance
    std::uint64_t same_thread = 0;    // within one instance and one thread
    double rate_per_s = 0;            // links / run window
    double p10_ms = 0, p50_ms = 0, p90_ms = 0;  // latency quantiles over the checked links
    double consumer_share = 0;  // links / the consumer's samples with an input
    double producer_share = 0;  // links / the producer's samples with an output
    std::uint32_t checked = 0;        // links looked at closely (all, or an even sample of them)
    double implied_share = 0;         // of the checked, reached through other kept pairs too
    double cross_instance_contradicted = 0;  // of the checked cross-instance links, share whose consumer has one from its own instance
    double cross_thread_contradicted = 0;    // same for threads (evaluated when the pair mixes threads)
    Verdict verdict = Verdict::kept;
    std::uint32_t rival = 0;          // sibling, outcompeted, reversed: index of the pair that wins
    graph::PairScope scope = graph::PairScope::any;
    std::string reason;               // one line: why kept or rejected
    std::string scope_reason;
};

struct EvidenceOptions {
    double rare_share = 0.005;       // rare: below this share of both tracepoints' samples
    double spread_share = 0.4;       // spread: p90 - p10 latency above this share of the run window
    double counterexample_share = 0.01;  // reversed: the opposite pair's links, as a share of this pair's, that reject both
    double implied_share = 0.9;      // shortcut: at least this share of checked links reached otherwise
    double contradicted_share = 0.5; // scope: cross links contradicted by inside ones
    std::uint32_t checked_links = 1024;  // links per pair looked at closely (evenly over the run)
    std::uint32_t search_visits = 256;   // samples a shortcut search may visit per link
};

struct Evidence {
    std::vector<TracepointClass> classes;
    std::vector<ClassId> class_of;   // per graph::TracepointId
    std::vector<PairEvidence> pairs;  // sorted by (from, to)
    std::uint64_t samples = 0;
    std::uint64_t links = 0;          // spec-less links in all
    std::size_t nodes = 0;
    double window_s = 0;
    bool threads_checked = false;     // the thread-scope test needs the samples' hash ids

    std::vector<std::uint32_t> kept() const;  // indices of kept pairs
    // The spec-less graph holds every link the kept pairs make within their
    // scopes (rule 5 takes the latest producer per source, and a source lies
    // within one instance), except where a pair is given thread scope although
    // some of its links cross threads: there the spec links producers that
    // the spec-less graph passed over.
    bool needs_relinking() const;
    // Links of the spec-less run that the kept pairs and their scopes would
    // not make: those of rejected pairs, and the contradicted cross-scope
    // links of kept ones (an estimate from the checked links).
    std::uint64_t links_a_spec_removes() const;
};

// `specless` is the samples linked with no [[pair]] rules (graph::link with an
// empty spec). Where a pair links across threads and the samples still hold
// their hash ids, a thread-scoped join decides whether those links are real.
Evidence gather_evidence(const graph::SampleSet& samples, const graph::Graph& specless, const EvidenceOptions& options = {});

}  // namespace hashtrace::infer
