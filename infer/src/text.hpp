// Small text helpers the writers share (private to the library).
#pragma once

#include "hashtrace/text/text.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace hashtrace::infer::detail {

using text::format;

inline std::string duration_text(double ms) {
    if (std::fabs(ms) >= 1000) return format("%.3g s", ms / 1000);
    return format("%.3g ms", ms);
}

inline std::string percent_text(double share) { return format("%.3g%%", 100 * share); }

inline std::string rate_text(double per_s) { return format("%.4g/s", per_s); }

}  // namespace hashtrace::infer::detail
