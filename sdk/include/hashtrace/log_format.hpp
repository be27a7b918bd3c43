// hashtrace/log_format.hpp - the two on-disk formats of a sample log.
#pragma once

namespace hashtrace {

enum class LogFormat {
    binary,  // compact, versioned, self-describing (docs/log-formats.md); file suffix .htlog
    csv,     // the paper's interchange format (docs/spec.md section 1); file suffix .csv
};

inline const char* file_suffix(LogFormat f) noexcept { return f == LogFormat::csv ? ".csv" : ".htlog"; }

// The tracepoint whose drop records count the samples a node's stream to a
// collector dropped (docs/log-formats.md): the log itself holds those
// samples, so readers report them apart from the samples the node lost.
inline constexpr const char* kStreamDropsTracepoint = "hashtrace.stream_dropped";

}  // namespace hashtrace
