// hashtrace/logio/slice.hpp - the part of a log that one time range needs,
// as a log of its own: what a machine holding a log sends to the machine that
// analyses a time shard of the run (docs/sharding.md).
#pragma once

#include <cstdint>
#include <filesystem>

namespace hashtrace::logio {

// Writes to `out` what a reader of [from_ns, to_ns) needs of `in`. A binary
// log of format 3: its file header and the blocks a range read would decode
// (those whose time index reaches into the range, and every block holding
// records other than samples: definitions, threads, drops, the end), copied
// byte for byte, so their checksums still hold and nothing is decoded. Any
// other log, or one whose blocks are not as their headers say: the samples
// of the range decoded and written anew as a binary log, with every
// definition. Returns the bytes written. Throws LogError as read_log does.
// `lenient`: the decoding path skips malformed records, as ReadOptions' does.
std::uint64_t slice_log(const std::filesystem::path& in, const std::filesystem::path& out, std::int64_t from_ns, std::int64_t to_ns,
                        bool lenient = false);

}  // namespace hashtrace::logio
