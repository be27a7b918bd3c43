// json_values.hpp - what the clock sections' JSON is built from: nlohmann's
// ordered JSON (the keys in the order written), numbers rounded as the text
// output shows them, and one way to write the document out.
#pragma once

#include "hashtrace/text/text.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <optional>
#include <string>

namespace hashtrace::clock_analysis::detail {

using json = nlohmann::ordered_json;

// `v` as printf's "%.<digits>Lf" writes it, read back: the same number a
// parser of that text would get.
inline double decimal(long double v, int digits) { return std::strtod(text::format("%.*Lf", digits, v).c_str(), nullptr); }

// Names come from logs as bytes: invalid UTF-8 is replaced (U+FFFD) rather
// than failing the whole output.
inline std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace hashtrace::clock_analysis::detail
