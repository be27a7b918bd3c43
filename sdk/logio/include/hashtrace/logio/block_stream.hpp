// hashtrace/logio/block_stream.hpp - a version-3 binary log arriving as a
// byte stream (a node streaming to `hashtrace live`), cut into its file
// header and whole blocks as the bytes come, in any pieces.
//
// Only the framing is read here (lengths, the time index, checksums); the
// records are decoded by the one block decoder, read_binary, on the header
// and the blocks a reader wants (docs/log-formats.md: every block is
// self-contained but for the definitions earlier blocks made).
//
//   BlockStream s("Physics@10.0.0.2:51000");
//   for (const StreamBlock& b : s.feed(received)) ...   // throws LogError on damage
#pragma once

#include "hashtrace/logio/reader.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::logio {

struct StreamBlock {
    std::string bytes;  // the whole block: its header and records
    std::int64_t min_ns = 0, max_ns = 0;  // the block's time index (no samples: min > max)
    std::uint32_t samples = 0;
    bool holds_records = false;  // definitions, threads, drops, losses or the end: later blocks may need them
};

class BlockStream {
public:
    // Blocks longer than this are refused as damage rather than buffered
    // (the writer's blocks are a flush interval's, far below).
    static constexpr std::uint32_t kMaxBlockBytes = 64u << 20;

    explicit BlockStream(std::string name) : name_(std::move(name)) {}

    // Takes the next bytes; returns the blocks they complete, in order.
    // Throws LogError (with the stream offset) for a stream that is not a
    // version-3 log, a damaged header or block (checksum, marker, length).
    std::vector<StreamBlock> feed(std::string_view bytes);

    bool has_header() const noexcept { return !header_bytes_.empty(); }
    const std::string& header_bytes() const noexcept { return header_bytes_; }  // magic to header checksum
    const LogHeader& header() const noexcept { return header_; }
    std::uint64_t offset() const noexcept { return offset_; }          // bytes taken into whole header and blocks
    std::size_t pending_bytes() const noexcept { return pending_.size(); }  // of a block not whole yet

private:
    bool take_header();
    bool take_block(std::vector<StreamBlock>& out);

    std::string name_;
    std::string pending_;
    std::string header_bytes_;
    LogHeader header_;
    std::uint64_t offset_ = 0;
};

}  // namespace hashtrace::logio
