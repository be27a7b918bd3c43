// hashtrace/text/text.hpp - the text helpers the renderers share (tables,
// reports, warnings): one way to format and one to split into lines.
//
//   text::format("%.3f ms", ms)      // printf's rules, the whole result however long
//   for (auto line : text::lines(block)) ...
//   text::for_each_record(file_text, [&](std::string_view line, std::size_t number) { ... });
//   std::string_view fields[8]; auto n = text::split(line, ',', fields);
#pragma once

#include <cstddef>
#include <cstdio>
#include <span>
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

// The records of a text file of records (clock records, edge replays: CSV
// with comments), each with its 1-based line number for error messages: a
// '\r' before the '\n' dropped (files edited on Windows), blank lines and
// '#' comments skipped. f(line, line_number).
template <typename F>
void for_each_record(std::string_view text, F&& f) {
    for (std::size_t number = 1; !text.empty(); ++number) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty() && line.front() != '#') f(line, number);
    }
}

// `line`'s fields between `separator`s into `fields`: how many there are,
// or fields.size() + 1 when there are more than it holds (the rest not split).
inline std::size_t split(std::string_view line, char separator, std::span<std::string_view> fields) {
    std::size_t count = 0;
    while (true) {
        if (count == fields.size()) return count + 1;
        const std::size_t end = line.find(separator);
        fields[count++] = line.substr(0, end);
        if (end == std::string_view::npos) return count;
        line.remove_prefix(end + 1);
    }
}

}  // namespace hashtrace::text
