// Shared by the collect subcommands: where and how a collector's log is written.
#pragma once

#include "hashtrace/cli/args.hpp"
#include "hashtrace/log_format.hpp"
#include "hashtrace/logio/reader.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace hashtrace::collectors::cli_support {

// The format of `-o FILE` from its suffix, as `hashtrace convert` decides it.
inline LogFormat output_format(const std::filesystem::path& file) {
    const auto ext = file.extension();
    if (ext == ".csv") return LogFormat::csv;
    if (ext == ".htlog") return LogFormat::binary;
    throw hashtrace::cli::UsageError("-o " + file.string() + ": the name must end in .csv or .htlog");
}

// Decimal seconds since the epoch (as in logs), parsed exactly.
inline std::int64_t parse_time_option(const std::string& name, const std::string& text) {
    std::int64_t ns = 0;
    if (!logio::parse_time_ns(text, ns))
        throw hashtrace::cli::UsageError(name + " '" + text + "': expected seconds since the Unix epoch, e.g. 1700000000.25");
    return ns;
}

}  // namespace hashtrace::collectors::cli_support
