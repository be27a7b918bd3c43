// hashtrace/report/json_writer.hpp - a streaming JSON writer.
//
// The exports hold millions of events: they are streamed, never built as a
// document in memory. Commas are placed by the writer, so callers only say
// what comes next. '<', '>' and '&' are escaped as \u00XX so that the output
// can sit inside an HTML <script> element unchanged.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

namespace hashtrace::report {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

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

    std::ostream& out_;
    // Per open container: has it got an element yet.
    std::vector<bool> has_element_;
    bool after_key_ = false;
};

void write_json_string(std::ostream& out, std::string_view text);

}  // namespace hashtrace::report
