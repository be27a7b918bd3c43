#include "hashtrace/report/json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace hashtrace::report {

void write_json_string(std::ostream& out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    out.put('"');
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out << "\\\""; break;
            case '\\': out << "\\\\"; break;
            case '\n': out << "\\n"; break;
            case '\r': out << "\\r"; break;
            case '\t': out << "\\t"; break;
            default:
                if (u < 0x20 || c == '<' || c == '>' || c == '&') {
                    out << "\\u00" << hex[u >> 4] << hex[u & 0xf];
                } else {
                    out.put(c);
                }
        }
    }
    out.put('"');
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!has_element_.empty()) {
        if (has_element_.back()) out_.put(',');
        has_element_.back() = true;
    }
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    out_.put('{');
    has_element_.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    has_element_.pop_back();
    out_.put('}');
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    out_.put('[');
    has_element_.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    has_element_.pop_back();
    out_.put(']');
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    before_value();
    write_json_string(out_, name);
    out_.put(':');
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    before_value();
    write_json_string(out_, text);
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    before_value();
    if (!std::isfinite(number)) {
        out_ << "null";
        return *this;
    }
    // Shortest text that reads back as the same double.
    std::array<char, 32> buf;
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), number);
    out_.write(buf.data(), end - buf.data());
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
    before_value();
    out_ << number;
    return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
    before_value();
    out_ << number;
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    before_value();
    out_ << (flag ? "true" : "false");
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    out_ << "null";
    return *this;
}

JsonWriter& JsonWriter::microseconds(std::int64_t ns) {
    before_value();
    const bool negative = ns < 0;
    // Through unsigned: -(INT64_MIN) does not fit an int64.
    const auto mag = negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    const auto frac = mag % 1000;
    if (negative) out_.put('-');
    out_ << mag / 1000 << '.' << char('0' + frac / 100) << char('0' + frac / 10 % 10) << char('0' + frac % 10);
    return *this;
}

}  // namespace hashtrace::report
