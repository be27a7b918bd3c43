#include "hashtrace/critical_path/change.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace hashtrace::critical_path {

std::int64_t Change::apply(std::int64_t ns) const {
    const double changed = double(ns) * factor + double(delta_ns);
    return changed <= 0 ? 0 : static_cast<std::int64_t>(std::llround(changed));
}

Change parse_change(std::string_view text) {
    auto fail = [&](const std::string& reason) { throw std::invalid_argument("'" + std::string(text) + "': " + reason); };
    const std::size_t arrow = text.find("->");
    if (arrow == std::string_view::npos) fail("expected FROM->TO followed by *F, +D or -D");
    std::string_view rest = text.substr(arrow + 2);
    // The amount is read from the end: the TO selector may hold `*` and `-`.
    std::string_view unit;
    for (std::string_view u : {"ms", "us", "s"})
        if (rest.ends_with(u)) {
            unit = u;
            rest.remove_suffix(u.size());
            break;
        }
    std::size_t number_begin = rest.size();
    while (number_begin > 0 && (std::isdigit(static_cast<unsigned char>(rest[number_begin - 1])) || rest[number_begin - 1] == '.')) --number_begin;
    if (number_begin == rest.size() || number_begin == 0) fail("expected FROM->TO followed by *F, +D or -D (e.g. *0.5, +2ms, -300us)");
    const char op = rest[number_begin - 1];
    if (op == '-' && unit.empty() && number_begin >= 2 && rest[number_begin - 2] == '*') fail("the factor must be > 0");
    const std::string_view number = rest.substr(number_begin);
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size()) fail("'" + std::string(number) + "' is not a number");
    Change c;
    c.text = std::string(text);
    try {
        c.from = graph::Selector::parse(text.substr(0, arrow));
        c.to = graph::Selector::parse(rest.substr(0, number_begin - 1));
    } catch (const std::invalid_argument& e) {
        fail(e.what());
    }
    switch (op) {
        case '*':
            if (!unit.empty()) fail("a factor takes no unit");
            if (!(value > 0)) fail("the factor must be > 0");
            c.factor = value;
            break;
        case '+':
        case '-': {
            if (unit.empty()) fail("give the amount's unit: ms, us or s");
            const double scale = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : 1e3;
            const double ns = value * scale;
            if (!(ns < 1e18)) fail("the amount is too large");
            c.delta_ns = static_cast<std::int64_t>(std::llround(op == '+' ? ns : -ns));
            break;
        }
        default: fail(std::string("unknown operator '") + op + "' (use *F, +D or -D)");
    }
    return c;
}

}  // namespace hashtrace::critical_path
