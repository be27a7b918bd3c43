// `hashtrace infer`: logs of a run, no spec -> the spec, the picture and the
// evidence of which tracepoints really link (docs/infer.md,
// "Structure recovery").
#include "command.hpp"
#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/evidence.hpp"
#include "hashtrace/clock_analysis/edge_estimate.hpp"
#include "hashtrace/infer/infer.hpp"
#include "hashtrace/infer/writers.hpp"
#include "pipeline.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace {

constexpr const char* kUsage =
    "usage: hashtrace infer LOGS... [-o spec.toml] [--dot FILE] [--json FILE] [--all-intervals] [--force] [options]\n"
    "  Recovers the system's structure from the logs alone: links every pair of tracepoints as a\n"
    "  spec-less `analyze` does, keeps the pairs the evidence supports (rejecting rare links,\n"
    "  overlapping id spaces, coincident counters, shortcuts and rival producers), proposes scopes,\n"
    "  finds sources, sinks and main routes, and writes a spec to edit. Prints the evidence per pair.\n"
    "  -o FILE              write the spec (TOML) there; without it the spec goes to stdout\n"
    "  --force              let -o overwrite an existing file\n"
    "  --dot FILE           the system as Graphviz (nodes as clusters); also FILE.svg where `dot` is installed\n"
    "  --json FILE          the evidence, chains and intervals as JSON\n"
    "  --all-intervals      an interval for every ordered pair of tracepoints along each main route,\n"
    "                       not only each link and each source-to-sink pair\n"
    "  --clock-correct edges|none  clocks that disagree by more than a message's transit hide links and\n"
    "                       reverse pass-through hops: when over 1% of the messages are received before\n"
    "                       they are sent by the logs' clocks, the clocks are estimated from the messages\n"
    "                       (as `clock estimate` does) and the samples corrected first. edges: always;\n"
    "                       none: never\n";

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error(path + ": cannot write");
}

// Graphviz is optional: without it the .dot file is still written.
void render_svg(const std::string& dot_file) {
    std::fflush(stdout);  // our report before dot's messages
    const std::string svg = std::filesystem::path(dot_file).replace_extension(".svg").string();
    std::vector<std::string> argv_text = {"dot", "-Tsvg", dot_file, "-o", svg};
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawnp(&pid, "dot", nullptr, nullptr, argv.data(), environ) != 0) {
        std::fprintf(stderr, "no SVG: Graphviz's `dot` is not installed (apt-get install graphviz); %s is written\n", dot_file.c_str());
        return;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        std::fprintf(stderr, "picture: %s (from %s)\n", svg.c_str(), dot_file.c_str());
    else
        std::fprintf(stderr, "`dot -Tsvg %s` failed; the .dot file is written\n", dot_file.c_str());
}

// Clocks that disagree by more than a message's transit put its receives
// before its sends: the spec-less linking then misses those links and takes
// a pass-through hop's reverse for it. The message hops the hashes show do
// not depend on the clocks: when they show it (ClockDisagreement), the
// clocks are estimated from them and the samples corrected before anything
// is linked. The linking after keeps the tolerance given: the bounds' width
// would let a pass-through hop's reverse link again.
void correct_clocks(hashtrace::graph::SampleSet& samples, const std::optional<std::string>& mode, const hashtrace::cli::PipelineOptions& pipeline,
                    const hashtrace::cli::ClockEstimateOptions& estimate) {
    using namespace hashtrace;
    if (mode == "none") return;
    std::optional<cli::ClockDisagreement> disagreement;
    if (!mode) {
        disagreement = cli::clock_disagreement_stage(samples);
        if (!disagreement->matters()) return;
        std::fprintf(stderr, "note: %s: the clocks are estimated from the messages and the samples corrected first (--clock-correct none: not)\n",
                     disagreement->text().c_str());
    }
    const auto base = cli::estimate_clocks_stage(samples, graph::AnalysisSpec{}, pipeline, estimate, /*keep_hash_ids=*/true,
                                                 disagreement ? &disagreement->found : nullptr);
    std::fputs(clock_analysis::render_estimate_text(base, samples).c_str(), stderr);
    std::vector<std::string> warnings = base.warnings;
    graph::correct_times(samples, clock_analysis::edge_time_correction(base, samples, warnings));
    for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

// What a user may not expect from logs of one node.
void note_single_node(const hashtrace::graph::SampleSet& samples) {
    if (samples.node_names.size() == 1)
        std::fprintf(stderr, "note: all samples come from one node (%s): only the links within it can be inferred\n",
                     samples.node_names[0].c_str());
}

int run_infer(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    if (args.help_requested()) {
        std::printf("%s%s%s", kUsage, cli::kClockEstimateOptionsHelp, cli::kPipelineOptionsHelp);
        return 0;
    }
    const auto pipeline = cli::read_pipeline_options(args);
    const auto output = args.option("-o");
    const auto dot = args.option("--dot");
    const auto json = args.option("--json");
    const bool all_intervals = args.flag("--all-intervals");
    const bool force = args.flag("--force");
    const auto clock_correct = args.flag_or_word("--clock-correct", {"edges", "none"});
    const auto estimate = cli::read_clock_estimate_options(args);
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs to infer the structure of (files or directories)");
    if (pipeline.spec_file) throw cli::UsageError("infer reads no --spec: it writes one (-o)");
    if (pipeline.keep_all) throw cli::UsageError("infer links the latest producer per source, as a spec will: --keep-all does not apply");
    if (output && !force && std::filesystem::exists(*output))
        throw cli::UsageError(*output + " exists: give --force to overwrite it, or another -o");

    cli::StageTimings timings(pipeline.timings);
    auto samples = cli::load_stage(inputs, pipeline);
    cli::report_input_health(samples);
    timings.mark("load");
    correct_clocks(samples, clock_correct && clock_correct->empty() ? std::optional<std::string>("edges") : clock_correct, pipeline, estimate);
    timings.mark("clocks");
    const auto specless = cli::link_stage(samples, graph::AnalysisSpec{}, pipeline, /*keep_hash_ids=*/true);
    timings.mark("link");
    note_single_node(samples);
    infer::InferOptions options;
    options.all_intervals = all_intervals;
    options.relink = [&](const graph::AnalysisSpec& pairs) { return cli::link_stage(samples, pairs, pipeline, /*keep_hash_ids=*/true); };
    const auto inferred = infer::infer_structure(samples, specless, options);
    const auto& [evidence, chains, intervals, dropped, spec_text] = inferred;
    timings.mark("evidence");

    std::fputs(infer::write_report(evidence, chains).c_str(), stdout);
    std::printf("%zu intervals proposed (%zu along routes no sample path follows left out)\n", intervals.size(), dropped);
    if (output) {
        write_file(*output, spec_text);
        std::printf("spec: %s (then: hashtrace analyze LOGS --spec %s)\n", output->c_str(), output->c_str());
    } else {
        std::printf("\n%s", spec_text.c_str());
    }
    if (json) write_file(*json, infer::write_json(evidence, chains, intervals));
    if (dot) {
        write_file(*dot, infer::write_dot(evidence, chains));
        render_svg(*dot);
    }
    timings.mark("output");
    timings.print();
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("infer", "recover the system's structure from the logs: write the spec and draw the system", run_infer);
