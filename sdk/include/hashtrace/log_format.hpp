// hashtrace/log_format.hpp - the two on-disk formats of a sample log.
#pragma once

namespace hashtrace {

enum class LogFormat {
    binary,  // compact, versioned, self-describing (docs/log-formats.md); file suffix .htlog
    csv,     // the paper's interchange format (docs/spec.md section 1); file suffix .csv
};

inline const char* file_suffix(LogFormat f) noexcept { return f == LogFormat::csv ? ".csv" : ".htlog"; }

}  // namespace hashtrace
