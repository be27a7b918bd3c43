// `hashtrace convert IN OUT`: either log format into the other.
#include "command.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/writer.hpp"

#include <cstdio>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace convert IN OUT [--to csv|binary] [--lenient]\n"
    "  Rewrites a sample log in the other format. OUT's format comes from --to, else from its\n"
    "  suffix (.csv or .htlog). Samples, drops and tracepoints convert losslessly; thread names\n"
    "  and the run header (host, pid, clock source) exist only in the binary format.\n";

int run_convert(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto to = args.option("--to");
    const bool lenient = args.flag("--lenient");
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
    const auto log = logio::load_log(files[0], {lenient});
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
