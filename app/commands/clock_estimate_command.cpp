// `hashtrace clock estimate`: every instance's clock offset and drift from the
// messages of a run, with guaranteed bounds (docs/clock-sync.md, section 8).
#include "command.hpp"
#include "hashtrace/clock_analysis/edge_estimate.hpp"
#include "output.hpp"
#include "pipeline.hpp"

#include <cstdio>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace clock estimate LOGS... [--spec FILE] [--reference NODE] [--json FILE] [options]\n"
    "  Estimates each process instance's clock (offset at the reference's first sample and drift)\n"
    "  relative to a reference instance from the run's message edges alone - a message is received\n"
    "  after it was sent - with bounds that hold whatever the transit times. Works without PTP or PPS.\n"
    "  Without --spec, from the message pairs the hashes' journeys show (a maker before its consumer).\n"
    "  A partial answer is an answer: the instances that cannot be placed are named, with the bounds the\n"
    "  messages give them, and the exit status is 0 while one instance besides the reference is placed\n"
    "  (1 when none is).\n"
    "  --strict             exit status 1 when any instance cannot be placed or constraints contradict\n"
    "  --json FILE          write {reference, origin_ns, clock_estimates: [...], warnings}\n";

// 0 for a whole answer, and for a partial one (some instance besides the
// reference placed) unless --strict: scripts should not take a run whose
// clocks are mostly known as failed. 1 when nothing could be placed.
bool any_placed(const hashtrace::clock_analysis::TimeBase& base) {
    for (std::uint32_t i = 0; i < base.clocks.size(); ++i)
        if (i != base.reference && base.clocks[i].placed) return true;
    return false;
}

int exit_status(const hashtrace::clock_analysis::TimeBase& base, bool strict) {
    if (base.warnings.empty()) return 0;
    return strict || !any_placed(base) ? 1 : 0;
}

int run_clock_estimate(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto pipeline = cli::read_pipeline_options(args);
    const auto estimate = cli::read_clock_estimate_options(args);
    const auto json = args.option("--json");
    const bool strict = args.flag("--strict");
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs of a run (files or directories)");

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    auto samples = cli::load_stage(inputs, pipeline);
    timings.mark("load");
    cli::report_input_health(samples);
    for (const auto& w : cli::check_spec_stage(spec, samples, pipeline)) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const auto base = cli::estimate_clocks_stage(samples, spec, pipeline, estimate, /*keep_hash_ids=*/false);
    timings.mark("estimate");

    std::fputs(clock_analysis::render_estimate_text(base, samples).c_str(), stdout);
    if (json) cli::write_file(*json, clock_analysis::render_estimate_json(base, samples) + "\n");
    timings.mark("output");
    timings.print();
    if (base.clocks.size() > 1 && !any_placed(base)) {
        std::fflush(stdout);  // after the table and its warnings, where a reader of both looks last
        std::fprintf(stderr, "error: no instance besides the reference (%s) can be placed from the messages: no answer (see the warnings)\n",
                     clock_analysis::instance_name(samples, base.reference).c_str());
    }
    return exit_status(base, strict);
}

}  // namespace

HASHTRACE_COMMAND("clock estimate", "estimate every instance's clock offset and drift from the messages, with guaranteed bounds",
                  run_clock_estimate, kUsage, hashtrace::cli::kClockEstimateOptionsHelp, hashtrace::cli::kPipelineOptionsHelp);
