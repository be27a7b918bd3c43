// parsers.hpp - the two parsers with what read_log and index_log add to the
// public read_csv / read_binary: a report of the bytes they are done with,
// and the blocks passed over while indexing.
#pragma once

#include "hashtrace/logio/reader.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
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

// index_log's way through a binary log of version 3: a block that holds
// only samples is checked against its checksum and, instead of being decoded,
// told here with its header's time index (in file order with the batches of
// the blocks that are decoded), and where its bytes are: [at, end).
using BlockSkipped = std::function<void(std::int64_t min_ns, std::int64_t max_ns, std::uint32_t samples, std::uint64_t at, std::uint64_t end)>;

ReadReport parse_csv(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions&, const Consumed&);
ReadReport parse_binary(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions&, const Consumed&,
                        const BlockSkipped& indexing = nullptr);

// read_log of a file, with parse_binary's `indexing` (a CSV log has no blocks to pass over).
ReadReport read_file(const std::filesystem::path& file, LogVisitor&, const ReadOptions&, const BlockSkipped& indexing);

}  // namespace hashtrace::logio::parsers
