// hashtrace/report/json_writer.hpp - a streaming JSON writer, for the large
// documents only; a small one (a section, a summary, a command's --json) is an
// nlohmann::ordered_json.
//
// The exports hold millions of events, and the report's data model hundreds
// of thousands of values (ticks, dots, density bins: 193,000 for a 5 s run of
// the sample system): they are streamed, never built as a document in memory
// (text goes to the stream in 64 KiB chunks: one ostream call per token would
// dominate the cost). Commas are placed by the writer,
// so callers only say what comes next. '<', '>' and '&' are escaped as \u00XX so that the output
// can sit inside an HTML <script> element unchanged.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::report {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}
    ~JsonWriter() { flush(); }
    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;

    void flush();  // hands buffered text to the stream (the destructor does too)

    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view name);

    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(double number);  // non-finite numbers are written as null
    JsonWriter& value(std::int64_t number);
    JsonWriter& value(std::uint64_t number);
    JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
    JsonWriter& value(unsigned number) { return value(static_cast<std::uint64_t>(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& null();
    // Nanoseconds as microseconds with three decimals, exactly (no double).
    JsonWriter& microseconds(std::int64_t ns);

    template <typename T>
    JsonWriter& field(std::string_view name, const T& v) { return key(name).value(v); }

private:
    void before_value();
    void string(std::string_view text);
    void maybe_flush() {
        if (buf_.size() >= 64 * 1024) flush();
    }

    std::ostream& out_;
    std::string buf_;
    // Per open container: has it got an element yet.
    std::vector<bool> has_element_;
    bool after_key_ = false;
};

}  // namespace hashtrace::report
