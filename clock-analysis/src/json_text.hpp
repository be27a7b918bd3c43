// json_text.hpp - a string as a JSON string literal, for the clock sections
// this library writes as JSON text (metrics splices them into its output).
#pragma once

#include <cstdio>
#include <string>

namespace hashtrace::clock_analysis::detail {

inline std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace hashtrace::clock_analysis::detail
