// Exact conversion between decimal seconds and integer nanoseconds: a double
// holds only ~16 digits, and epoch nanoseconds need 19.
#include "hashtrace/detail/csv_format.hpp"
#include "hashtrace/logio/reader.hpp"

#include <limits>

namespace hashtrace::logio {

bool parse_time_ns(std::string_view text, std::int64_t& out) noexcept {
    std::size_t i = 0;
    const bool negative = !text.empty() && text[0] == '-';
    if (negative) ++i;
    std::uint64_t seconds = 0;
    std::size_t int_digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++int_digits) {
        if (seconds > (std::numeric_limits<std::int64_t>::max() / 1000000000 - 9) / 10) return false;  // overflow
        seconds = seconds * 10 + static_cast<std::uint64_t>(text[i] - '0');
    }
    std::uint64_t frac = 0;
    std::size_t frac_digits = 0;
    if (i < text.size() && text[i] == '.') {
        ++i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++frac_digits) {
            if (frac_digits == 9) return false;  // more precision than nanoseconds: refuse, don't round
            frac = frac * 10 + static_cast<std::uint64_t>(text[i] - '0');
        }
    }
    if (i != text.size() || (int_digits == 0 && frac_digits == 0)) return false;
    for (std::size_t d = frac_digits; d < 9; ++d) frac *= 10;
    const std::int64_t ns = static_cast<std::int64_t>(seconds * 1000000000 + frac);
    out = negative ? -ns : ns;
    return true;
}

std::string format_time_ns(std::int64_t ns) {
    detail::ByteBuffer b;
    detail::append_time(b, ns);
    return std::string(b.data(), b.size());
}

}  // namespace hashtrace::logio
