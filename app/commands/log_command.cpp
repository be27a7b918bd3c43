// `hashtrace log FILE`: what a log holds, readable by a person.
#include "command.hpp"
#include "hashtrace/logio/reader.hpp"

#include <cstdio>
#include <map>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace log FILE... [--head N] [--lenient]\n"
    "  Prints each log's header, tracepoints (with sample and drop counts), threads,\n"
    "  whether a binary log was closed cleanly, any torn tail or skipped records,\n"
    "  and its first N samples (default 10).\n";

void print_log(const hashtrace::logio::SampleLog& log, long long head) {
    using namespace hashtrace;
    std::printf("== %s\n", log.path.c_str());
    for (const auto& [k, v] : log.header) std::printf("   %-14s %s\n", k.c_str(), v.c_str());
    std::vector<std::uint64_t> samples(log.tracepoints.size()), drops(log.tracepoints.size());
    for (const auto& s : log.samples) ++samples[s.tracepoint];
    for (const auto& d : log.drops) drops[d.tracepoint] += d.count;
    std::printf("   %zu tracepoints, %zu samples, %llu dropped, %llu lost", log.tracepoints.size(), log.samples.size(),
                static_cast<unsigned long long>(log.report.dropped_samples), static_cast<unsigned long long>(log.report.lost_samples));
    if (log.report.stream_dropped)
        std::printf(", %llu not sent to the live collector (held here)", static_cast<unsigned long long>(log.report.stream_dropped));
    std::printf("\n");
    for (const auto& l : log.losses)
        std::printf("   LOST %llu samples of tracepoint %u between %s and %s: the writer could not write them (disk full)\n",
                    static_cast<unsigned long long>(l.count), unsigned(l.tracepoint), logio::format_time_ns(l.first_time_ns).c_str(),
                    logio::format_time_ns(l.last_time_ns).c_str());
    std::printf("   %-4s %-12s %-24s %-14s %-14s %-9s %10s %8s\n", "#", "node", "tracepoint", "input", "output", "hash",
                "samples", "dropped");
    for (std::size_t i = 0; i < log.tracepoints.size(); ++i) {
        const auto& tp = log.tracepoints[i];
        std::printf("   %-4zu %-12s %-24s %-14s %-14s %-9s %10llu %8llu\n", i, tp.node_name.c_str(),
                    tp.tracepoint_name.c_str(), tp.input_hash_type.c_str(), tp.output_hash_type.c_str(),
                    std::string(to_string(tp.hash_function)).c_str(), static_cast<unsigned long long>(samples[i]),
                    static_cast<unsigned long long>(drops[i]));
    }
    for (const auto& t : log.threads)
        std::printf("   thread %u: os tid %lld \"%s\"\n", t.thread, static_cast<long long>(t.os_tid), t.name.c_str());
    if (log.report.torn)
        std::printf("   TORN TAIL at byte %llu (%llu bytes ignored): %s\n",
                    static_cast<unsigned long long>(log.report.torn_tail.offset),
                    static_cast<unsigned long long>(log.report.torn_tail.bytes_ignored), log.report.torn_tail.reason.c_str());
    if (log.report.closed_uncleanly())
        std::printf("   NOT CLOSED CLEANLY: %s\n", logio::kUncleanCloseMeaning);
    else if (log.report.format == LogFormat::binary)
        std::printf("   closed cleanly (end marker found)\n");
    for (const auto& m : log.report.bad_record_messages) std::printf("   skipped: %s\n", m.c_str());
    if (log.report.bad_records > log.report.bad_record_messages.size())
        std::printf("   ... %llu bad records skipped in all\n", static_cast<unsigned long long>(log.report.bad_records));
    const std::size_t n = std::min<std::size_t>(log.samples.size(), static_cast<std::size_t>(head < 0 ? 0 : head));
    if (n) std::printf("   %-30s %-24s %-32s %-32s %6s %8s\n", "sample_time", "tracepoint", "input_hash", "output_hash", "thread", "seq");
    for (std::size_t i = 0; i < n; ++i) {
        const auto& s = log.samples[i];
        const auto in = to_hex(s.input_hash), out = to_hex(s.output_hash);
        std::printf("   %-30s %-24s %-32.*s %-32.*s %6u %8llu\n", logio::format_time_ns(s.time_ns).c_str(),
                    log.tracepoints[s.tracepoint].tracepoint_name.c_str(), s.has_input() ? 32 : 1,
                    s.has_input() ? in.data() : "-", s.has_output() ? 32 : 1, s.has_output() ? out.data() : "-",
                    s.thread, static_cast<unsigned long long>(s.seq));
    }
}

int run_log(hashtrace::cli::Args& args) {
    const long long head = args.integer("--head", 10);
    const bool lenient = args.flag("--lenient");
    const auto files = args.positionals();
    args.finish();
    if (files.empty()) throw hashtrace::cli::UsageError("name at least one log file or directory");
    std::vector<std::filesystem::path> inputs(files.begin(), files.end());
    for (const auto& f : hashtrace::logio::find_logs(inputs)) print_log(hashtrace::logio::load_log(f, {lenient}), head);
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("log", "show what a log holds: header, tracepoints, counts, torn tail, first samples", run_log, kUsage);
