// generate_long_run DIR [options]: a synthetic multi-node run of any length
// with a known answer (hashtrace/datagen/long_run.hpp): one binary log per
// node, DIR/spec.toml and DIR/truth.json. Prints what it wrote and how fast.
#include "hashtrace/cli/args.hpp"
#include "hashtrace/datagen/long_run.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

namespace {

using hashtrace::cli::Args;
using hashtrace::cli::UsageError;

const char* const kUsage =
    "usage: generate_long_run DIR [options]\n"
    "  --samples N             about N samples in total (default 1000000; 1e9 is accepted)\n"
    "  --seconds S             S seconds of simulated time instead of a sample count\n"
    "  --nodes N               nodes, 5 to 1000 (default 10)\n"
    "  --rate R                samples a second of simulated time, all nodes, outside bursts (default 200000)\n"
    "  --seed S                (default 1)\n"
    "  --max-clock-offset-ms X each node's clock off by up to X ms (default 0.5)\n"
    "  --near-margin-ms X      a share of the messages waits just under X ms on one link\n"
    "  --near-margin-fraction F  that share (default 0.001)\n"
    "  --beyond-margin N       N messages wait longer than --beyond-margin-ms on one link\n"
    "  --beyond-margin-ms Y    longer than every other link of the run\n"
    "  --no-bursts             a steady rate\n";

std::uint64_t count_option(Args& args, const char* name, std::uint64_t fallback) {
    const double v = args.number(name, static_cast<double>(fallback));
    if (!(v >= 0 && v <= 1e15) || v != std::floor(v)) throw UsageError(std::string(name) + " must be a whole number >= 0");
    return static_cast<std::uint64_t>(v);
}

hashtrace::datagen::LongRunOptions read_options(Args& args) {
    hashtrace::datagen::LongRunOptions o;
    o.samples = count_option(args, "--samples", o.samples);
    o.seconds = args.number("--seconds", o.seconds);
    o.nodes = static_cast<unsigned>(count_option(args, "--nodes", o.nodes));
    o.rate_per_s = args.number("--rate", o.rate_per_s);
    o.seed = count_option(args, "--seed", o.seed);
    o.max_clock_offset_ms = args.number("--max-clock-offset-ms", o.max_clock_offset_ms);
    o.near_margin_ms = args.number("--near-margin-ms", o.near_margin_ms);
    o.near_margin_fraction = args.number("--near-margin-fraction", o.near_margin_fraction);
    o.beyond_margin_count = count_option(args, "--beyond-margin", o.beyond_margin_count);
    o.beyond_margin_ms = args.number("--beyond-margin-ms", o.beyond_margin_ms);
    o.bursts = !args.flag("--no-bursts");
    return o;
}

double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void print_summary(const std::string& dir, const hashtrace::datagen::LongRunTruth& t, double wall_s) {
    const double simulated_s = static_cast<double>(t.last_time_ns - t.first_time_ns) / 1e9;
    std::printf("%llu samples (%llu messages) in %zu logs, %.1f MB, %.3f s of simulated time\n", (unsigned long long)t.samples,
                (unsigned long long)t.messages, t.nodes.size(), static_cast<double>(t.bytes) / 1e6, simulated_s);
    std::printf("edges %llu (message %llu, local %llu), unlinked inputs %llu; hash values come back every %llu messages (loop: %llu)\n",
                (unsigned long long)t.edges, (unsigned long long)t.message_edges, (unsigned long long)t.local_edges,
                (unsigned long long)t.unlinked_inputs, (unsigned long long)t.message_id_period, (unsigned long long)t.loop_counter_period);
    std::printf("longest ordinary edge %.3f ms; beyond-margin messages %zu\n", static_cast<double>(t.longest_ordinary_edge_ns) / 1e6,
                t.beyond_margin.size());
    std::printf("wrote in %.2f s: %.2f M samples/s, %.0f MB/s; peak RSS %.1f MiB\n", wall_s, static_cast<double>(t.samples) / wall_s / 1e6,
                static_cast<double>(t.bytes) / wall_s / 1e6, peak_rss_mib());
    std::printf("spec: %s/spec.toml, truth: %s/truth.json\n", dir.c_str(), dir.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    try {
        Args args("generate_long_run", std::vector<std::string>(argv + 1, argv + argc));
        if (args.help_requested()) {
            std::fputs(kUsage, stdout);
            return 0;
        }
        const auto options = read_options(args);
        const auto dirs = args.positionals();
        args.finish();
        if (dirs.size() != 1) throw UsageError("give one directory");
        const auto start = std::chrono::steady_clock::now();
        const auto truth = hashtrace::datagen::write_long_run(dirs[0], options);
        print_summary(dirs[0], truth, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "generate_long_run: %s\n%s", e.what(), kUsage);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "generate_long_run: %s\n", e.what());
        return 1;
    }
}
