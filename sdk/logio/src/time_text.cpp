// Exact conversion between decimal seconds and integer nanoseconds: a double
// holds only ~16 digits, and epoch nanoseconds need 19.
#include "hashtrace/detail/csv_format.hpp"
#include "hashtrace/logio/reader.hpp"

#include <bit>
#include <cstring>
#include <limits>

namespace hashtrace::logio {

namespace {

// The value of the eight ASCII digits at p, or false when one is not a digit
// (SWAR: a CSV time has ~19 digits and was a tenth of reading a CSV log).
bool eight_digits(const char* p, std::uint64_t& out) noexcept {
    if constexpr (std::endian::native != std::endian::little) return false;  // the byte lanes below assume it
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    if (((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
        return false;
    v = (v & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;  // pairs of digits
    v = (v & 0x00FF00FF00FF00FFull) * 6553601 >> 16;  // fours
    out = (v & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
    return true;
}

}  // namespace

bool parse_time_ns(std::string_view text, std::int64_t& out) noexcept {
    // Whole seconds above this would overflow int64 nanoseconds.
    constexpr std::uint64_t kMaxSeconds = (std::numeric_limits<std::int64_t>::max() / 1000000000 - 9) / 10 * 10 + 9;
    const char* p = text.data();
    const char* const end = p + text.size();
    const bool negative = p != end && *p == '-';
    p += negative;
    const char* const int_begin = p;
    std::uint64_t seconds = 0;
    // Values only grow with more digits: stop at the first that overflows.
    for (std::uint64_t eight; end - p >= 8 && eight_digits(p, eight); p += 8) {
        if (seconds > kMaxSeconds) return false;
        seconds = seconds * 100000000 + eight;
    }
    for (; p != end && *p >= '0' && *p <= '9'; ++p) {
        if (seconds > kMaxSeconds) return false;
        seconds = seconds * 10 + static_cast<std::uint64_t>(*p - '0');
    }
    if (seconds > kMaxSeconds) return false;
    const bool has_int_digits = p != int_begin;
    std::uint64_t frac = 0;
    std::size_t frac_digits = 0;
    if (p != end && *p == '.') {
        ++p;
        if (std::uint64_t eight; end - p >= 8 && eight_digits(p, eight)) {
            frac = eight;
            frac_digits = 8;
            p += 8;
        }
        for (; p != end && *p >= '0' && *p <= '9'; ++p, ++frac_digits) {
            if (frac_digits == 9) return false;  // more precision than nanoseconds: refuse, don't round
            frac = frac * 10 + static_cast<std::uint64_t>(*p - '0');
        }
    }
    if (p != end || (!has_int_digits && frac_digits == 0)) return false;
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
