// `hashtrace convert IN OUT`: either log format into the other.
#include "command.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace convert IN OUT [--to csv|binary] [--lenient]\n"
    "  Rewrites a sample log in the other format. OUT's format comes from --to, else from its\n"
    "  suffix (.csv or .htlog). Samples, drops and tracepoints convert losslessly; thread names\n"
    "  and the run header (host, pid, clock source) exist only in the binary format.\n"
    "Testing aid (docs/clock-sync.md, section 8): stamp the log as a clock that is off would have.\n"
    "  --warp-offset-ms X   add X ms to every time\n"
    "  --warp-drift-ppm Y   and Y ppm of the time since the log's first sample (a clock running fast)\n"
    "  --warp-step-ms Z     and Z ms from --warp-step-at-s T seconds after the first sample on (a step)\n"
    "  The warp, t' = t + X + Y (t - t0) + [t >= t0 + T] Z with t0 the first sample, is printed to stderr.\n";

// A known clock error, for testing estimators against the truth.
struct Warp {
    double offset_ms = 0, drift_ppm = 0, step_ms = 0, step_at_s = 0;
    std::int64_t t0 = 0;
    std::int64_t apply(std::int64_t t) const {
        const long double since = static_cast<long double>(t - t0);
        const long double shift = offset_ms * 1e6L + drift_ppm * 1e-6L * since + (since >= step_at_s * 1e9L ? step_ms * 1e6L : 0.0L);
        return t + static_cast<std::int64_t>(std::llround(shift));
    }
};

int run_convert(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto to = args.option("--to");
    const bool lenient = args.flag("--lenient");
    Warp warp;
    warp.offset_ms = args.number("--warp-offset-ms", 0);
    warp.drift_ppm = args.number("--warp-drift-ppm", 0);
    warp.step_ms = args.number("--warp-step-ms", 0);
    const double step_at = args.number("--warp-step-at-s", std::numeric_limits<double>::quiet_NaN());
    const bool has_step_at = !std::isnan(step_at);
    if (has_step_at) warp.step_at_s = step_at;
    for (const double v : {warp.offset_ms, warp.drift_ppm, warp.step_ms, warp.step_at_s})
        if (!std::isfinite(v) || std::fabs(v) > 1e9) throw cli::UsageError("--warp-*: values must be finite and below 1e9");
    if ((warp.step_ms != 0) != has_step_at) throw cli::UsageError("--warp-step-ms and --warp-step-at-s go together");
    const bool warped = warp.offset_ms != 0 || warp.drift_ppm != 0 || warp.step_ms != 0;
    const auto files = args.positionals();
    args.finish();
    if (files.size() != 2) throw cli::UsageError("expected IN and OUT");
    LogFormat format;
    if (to) {
        if (*to == "csv") format = LogFormat::csv;
        else if (*to == "binary") format = LogFormat::binary;
        else throw cli::UsageError("--to takes csv or binary");
    } else {
        const auto ext = std::filesystem::path(files[1]).extension();
        if (ext == ".csv") format = LogFormat::csv;
        else if (ext == ".htlog") format = LogFormat::binary;
        else throw cli::UsageError("cannot tell OUT's format from '" + ext.string() + "': use --to");
    }
    auto log = logio::load_log(files[0], {lenient});
    if (warped && !log.samples.empty()) {
        warp.t0 = std::min_element(log.samples.begin(), log.samples.end(), [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; })->time_ns;
        for (auto& sample : log.samples) sample.time_ns = warp.apply(sample.time_ns);
        for (auto& drop : log.drops) drop.time_ns = warp.apply(drop.time_ns);
        std::fprintf(stderr, "%s: warped t' = t + %.9g ms + %.9g ppm (t - t0) + [t >= t0 + %.9g s] %.9g ms, t0 = %lld\n", files[0].c_str(),
                     warp.offset_ms, warp.drift_ppm, warp.step_at_s, warp.step_ms, static_cast<long long>(warp.t0));
    }
    logio::write_log(files[1], format, log);
    std::fprintf(stderr, "%s: %llu samples, %llu drop records -> %s\n", files[0].c_str(),
                 static_cast<unsigned long long>(log.samples.size()), static_cast<unsigned long long>(log.drops.size()),
                 files[1].c_str());
    if (log.report.torn)
        std::fprintf(stderr, "warning: %s: torn tail at byte %llu ignored (%s)\n", files[0].c_str(),
                     static_cast<unsigned long long>(log.report.torn_tail.offset), log.report.torn_tail.reason.c_str());
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("convert", "rewrite a log in the other format (CSV <-> binary)", run_convert, kUsage);
