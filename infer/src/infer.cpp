// Structure recovery end to end, shared by `hashtrace infer` and the
// spec-less `hashtrace analyze`, so that both link a run the same way.
#include "hashtrace/infer/infer.hpp"

#include "hashtrace/graph/spec.hpp"
#include "hashtrace/infer/writers.hpp"
#include "text.hpp"

namespace hashtrace::infer {
namespace {

std::string what_was_found(const graph::SampleSet& s) {
    return detail::format("%zu samples of %zu tracepoints on %zu nodes (%zu instances)", s.size(), s.tracepoints.size(), s.node_names.size(),
                          s.instances.size());
}

void check_structure(const graph::SampleSet& samples, const graph::Graph& specless) {
    std::size_t inputs = 0;
    for (std::size_t i = 0; i < samples.input.size(); ++i) inputs += samples.input[i] != graph::kNoHash;
    if (inputs == 0)
        throw NoStructure("no structure to infer: " + what_was_found(samples) +
                          ", and no sample has an input hash: every tracepoint only starts values (sources), nothing consumes them");
    if (specless.edges.empty())
        throw NoStructure("no structure to infer: " + what_was_found(samples) +
                          ", and no input hash equals an earlier output hash made with the same function, so nothing links "
                          "(do producer and consumer hash the same state?)");
}

}  // namespace

Inference infer_structure(const graph::SampleSet& samples, const graph::Graph& specless, const InferOptions& options) {
    if (samples.input.size() != samples.size())
        throw std::logic_error("infer_structure: the samples' hash ids were dropped (link with keep_hash_ids)");
    check_structure(samples, specless);
    Inference r;
    r.evidence = gather_evidence(samples, specless);
    r.chains = recover_chains(r.evidence);
    r.intervals = propose_intervals(r.evidence, r.chains, options.all_intervals);
    if (r.evidence.kept().empty())
        throw NoStructure("no structure to infer: " + what_was_found(samples) + "; every candidate pair was rejected:\n" +
                          write_report(r.evidence, r.chains));
    // Intervals along routes no sample path follows are left out, searched
    // for along the links the spec will make.
    if (r.evidence.needs_relinking()) {
        const auto pairs_only = graph::parse_spec(write_spec(r.evidence, {}), "inferred spec");
        const auto linked = options.relink ? options.relink(pairs_only) : graph::link(samples, pairs_only);
        r.intervals_left_out = keep_followed_intervals(samples, linked, r.evidence, r.intervals);
    } else {
        r.intervals_left_out = keep_followed_intervals(samples, specless, r.evidence, r.intervals);
    }
    r.spec_text = write_spec(r.evidence, r.intervals);
    return r;
}

}  // namespace hashtrace::infer
