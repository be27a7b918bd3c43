// hashtrace/text/text.hpp - the text helpers the renderers share (tables,
// reports, warnings): one way to format and one to split into lines.
//
//   text::format("%.3f ms", ms)      // printf's rules, the whole result however long
//   for (auto line : text::lines(block)) ...
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::text {

// printf-style into a string. A short result takes one call into a buffer on
// the stack; a longer one is measured by that call and written again whole
// (the renderers' copies of this cut at 256 or 512 bytes).
template <typename... T>
std::string format(const char* fmt, T... values) {
    char small[256];
    const int n = std::snprintf(small, sizeof small, fmt, values...);
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) < sizeof small) return std::string(small, static_cast<std::size_t>(n));
    std::string out(static_cast<std::size_t>(n), '\0');
    std::snprintf(out.data(), out.size() + 1, fmt, values...);
    return out;
}

// The lines of `text`, without their '\n'; a last line without one counts,
// an empty text has none.
inline std::vector<std::string_view> lines(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        out.push_back(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return out;
}

}  // namespace hashtrace::text
