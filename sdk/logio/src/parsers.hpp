// parsers.hpp - the two parsers with what read_log adds to the public
// read_csv / read_binary: a report of the bytes they are done with.
#pragma once

#include "hashtrace/logio/reader.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <string_view>

namespace hashtrace::logio::parsers {

// The CSV log's columns (docs/spec.md section 1), found by header name: the first
// kRequiredCsvColumns must all be there, the others are optional.
inline constexpr std::array<std::string_view, 12> kCsvColumnNames = {
    "node_name", "instance", "tracepoint_name", "input_hash_type", "output_hash_type", "sample_time",
    "input_hash", "output_hash", "thread", "seq", "hash_function", "dropped"};
inline constexpr int kRequiredCsvColumns = 8;

// Called now and then with how many leading bytes of the data the parser is
// done with (it never reads them again): read_log drops those mapped pages,
// so a large log does not stay resident while its samples are collected.
using Consumed = std::function<void(std::size_t bytes)>;

// Reported in steps of this many bytes at least.
inline constexpr std::size_t kConsumedStep = std::size_t{4} << 20;

ReadReport parse_csv(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions&, const Consumed&);
ReadReport parse_binary(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions&, const Consumed&);

}  // namespace hashtrace::logio::parsers
