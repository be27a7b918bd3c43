#include "hashtrace/report/json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace hashtrace::report {

namespace {

bool needs_escape(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&';
}

template <typename Number>
void append_number(std::string& out, Number v) {
    std::array<char, 32> buf;
    // Shortest text that reads back as the same value (also for doubles).
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    out.append(buf.data(), end);
}

}  // namespace

void JsonWriter::flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
}

void JsonWriter::string(std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    buf_.push_back('"');
    std::size_t run = 0;  // start of the current run of plain characters
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!needs_escape(c)) continue;
        buf_.append(text.substr(run, i - run));
        run = i + 1;
        switch (c) {
            case '"': buf_ += "\\\""; break;
            case '\\': buf_ += "\\\\"; break;
            case '\n': buf_ += "\\n"; break;
            case '\r': buf_ += "\\r"; break;
            case '\t': buf_ += "\\t"; break;
            default: {
                const auto u = static_cast<unsigned char>(c);
                const char escaped[] = {'\\', 'u', '0', '0', hex[u >> 4], hex[u & 0xf]};
                buf_.append(escaped, sizeof escaped);
            }
        }
    }
    buf_.append(text.substr(run));
    buf_.push_back('"');
}

void JsonWriter::before_value() {
    maybe_flush();
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!has_element_.empty()) {
        if (has_element_.back()) buf_.push_back(',');
        has_element_.back() = true;
    }
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    buf_.push_back('{');
    has_element_.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    has_element_.pop_back();
    buf_.push_back('}');
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    buf_.push_back('[');
    has_element_.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    has_element_.pop_back();
    buf_.push_back(']');
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    before_value();
    string(name);
    buf_.push_back(':');
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    before_value();
    string(text);
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    before_value();
    if (std::isfinite(number)) append_number(buf_, number);
    else buf_ += "null";
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
    before_value();
    append_number(buf_, number);
    return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
    before_value();
    append_number(buf_, number);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    before_value();
    buf_ += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    buf_ += "null";
    return *this;
}

JsonWriter& JsonWriter::microseconds(std::int64_t ns) {
    before_value();
    const bool negative = ns < 0;
    // Through unsigned: -(INT64_MIN) does not fit an int64.
    const auto mag = negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    const auto frac = mag % 1000;
    if (negative) buf_.push_back('-');
    append_number(buf_, mag / 1000);
    const char decimals[] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10)};
    buf_.append(decimals, sizeof decimals);
    return *this;
}

}  // namespace hashtrace::report
