// parsers.hpp - the two parsers with what read_log adds to the public
// read_csv / read_binary: a report of the bytes they are done with.
#pragma once

#include "hashtrace/logio/reader.hpp"

#include <cstddef>
#include <functional>

namespace hashtrace::logio::parsers {

// Called now and then with how many leading bytes of the data the parser is
// done with (it never reads them again): read_log drops those mapped pages,
// so a large log does not stay resident while its samples are collected.
using Consumed = std::function<void(std::size_t bytes)>;

// Reported in steps of this many bytes at least.
inline constexpr std::size_t kConsumedStep = std::size_t{4} << 20;

ReadReport parse_csv(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions&, const Consumed&);
ReadReport parse_binary(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions&, const Consumed&);

}  // namespace hashtrace::logio::parsers
