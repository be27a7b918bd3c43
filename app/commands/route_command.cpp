// `hashtrace route`: the recovered route through one sample (Figure 5).
#include "command.hpp"
#include "hashtrace/graph/route.hpp"
#include "hashtrace/logio/reader.hpp"
#include "output.hpp"
#include "pipeline.hpp"

#include <cstdio>
#include <optional>
#include <string>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace route LOGS... (--from NODE/TRACEPOINT [--after TIME] | --sample N) [--dot FILE] [options]\n"
    "  Links the logs, picks a sample and prints the route through it, upstream and downstream.\n"
    "  --from SELECTOR      the first sample of a matching tracepoint (globs: *) ...\n"
    "  --after TIME         ... at or after TIME: epoch seconds, or +S seconds after the first sample\n"
    "  --sample N           the sample with index N (as printed by a previous route)\n"
    "  --dot FILE           write Graphviz DOT (render: dot -Tsvg FILE > route.svg); '-' for stdout\n"
    "  --max-hops N         per direction (default 64)\n"
    "  --max-samples N      per direction (default 2000)\n";

// The first sample of tracepoints matching `from` at or after --after (the
// run's start without it); an error saying what the run covers if none.
hashtrace::graph::SampleIndex first_match(const hashtrace::graph::SampleSet& samples, const std::string& from, const std::optional<std::string>& after) {
    using namespace hashtrace;
    graph::Selector selector;
    try {
        selector = graph::Selector::parse(from);
    } catch (const std::invalid_argument& e) {
        throw cli::UsageError(e.what());
    }
    std::int64_t after_ns = samples.size() ? samples.time_ns.front() : 0;
    if (after) {
        std::int64_t t = 0;
        const bool relative = after->starts_with("+");
        if (!logio::parse_time_ns(relative ? std::string_view(*after).substr(1) : std::string_view(*after), t))
            throw cli::UsageError("--after takes decimal seconds (epoch) or +seconds, not '" + *after + "'");
        after_ns = relative ? after_ns + t : t;
    }
    const auto found = graph::find_sample(samples, selector, after_ns);
    if (!found) {
        // Say what the run covers, so a time past its end is seen as such.
        const std::int64_t first = samples.size() ? samples.time_ns.front() : 0;
        const std::int64_t last = samples.size() ? samples.time_ns.back() : 0;
        char span[128];
        std::snprintf(span, sizeof span, "the run lasts %.3f s and --after is at +%.3f s",
                      double(graph::elapsed_ns(first, last)) / 1e9, double(graph::elapsed_ns(first, after_ns)) / 1e9);
        throw std::runtime_error("no sample of " + from + " at or after the given time: " + span);
    }
    return *found;
}

int run_route(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto pipeline = cli::read_pipeline_options(args);
    const auto from = args.option("--from");
    const auto after = args.option("--after");
    const long long sample = args.integer("--sample", -1);
    const auto dot = args.option("--dot");
    graph::RouteOptions route_options;
    route_options.max_hops = static_cast<std::uint32_t>(args.integer("--max-hops", route_options.max_hops));
    route_options.max_samples = static_cast<std::uint32_t>(args.integer("--max-samples", route_options.max_samples));
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs (files or directories)");
    if (bool(from) == (sample >= 0)) throw cli::UsageError("give exactly one of --from and --sample");

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    const auto run = cli::linked_run_stage(inputs, spec, pipeline, timings, {.values = true, .ids = true});
    const auto& samples = run.samples;
    const auto& graph = run.graph;

    graph::SampleIndex origin;
    if (from) {
        origin = first_match(samples, *from, after);
    } else {
        if (static_cast<unsigned long long>(sample) >= samples.size())
            throw cli::UsageError("--sample " + std::to_string(sample) + " is beyond the " + std::to_string(samples.size()) + " samples");
        origin = static_cast<graph::SampleIndex>(sample);
    }
    const auto route = graph::trace_route(samples, graph, origin, route_options);
    std::fputs(graph::render_route_text(samples, route).c_str(), stdout);
    if (dot) {
        const auto text = graph::render_route_dot(samples, route);
        if (*dot == "-") std::fputs(text.c_str(), stdout);
        else cli::write_file(*dot, text);
    }
    timings.mark("route");
    timings.print();
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("route", "the recovered route through one sample, as text and Graphviz DOT", run_route,
                  kUsage, hashtrace::cli::kPipelineOptionsHelp);
