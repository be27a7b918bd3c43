// hashtrace/live/window.hpp - the recent past of every stream, as whole
// blocks: what the collector links next, and what "save the last N seconds"
// writes. Blocks with records other than samples (tracepoint definitions,
// thread names, drops, losses) are kept for the stream's life, since later
// blocks need them; blocks of samples only are forgotten once older than the window.
#pragma once

#include "hashtrace/logio/block_stream.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::live {

class Window {
public:
    using Logs = std::vector<std::pair<std::string, std::string>>;  // {name, bytes of a log}

    // The first block of a stream comes with its file header.
    void add(std::size_t stream, const std::string& name, const std::string& header_bytes, logio::StreamBlock block);
    // Per stream, a log of its header, its blocks of records and its blocks
    // of samples reaching to from_ns or later, in the order received.
    Logs logs(std::int64_t from_ns) const;
    // Which stream each of logs()'s entries is, in the same order.
    std::vector<std::size_t> streams() const;
    void forget_before(std::int64_t ns);
    // Samples in blocks reaching into [from_ns, to_ns): what one settle of that range links.
    std::uint64_t samples_in(std::int64_t from_ns, std::int64_t to_ns) const;
    // Load shedding: removes whole blocks of samples only that lie wholly at
    // or after `from_ns` (none of their samples settled), oldest first (by
    // their newest sample, across streams) until they hold at least `excess`
    // samples; blocks with other records stay (later blocks need them). The
    // samples removed, per stream.
    std::map<std::size_t, std::uint64_t> shed(std::int64_t from_ns, std::uint64_t excess);
    // The newest sample time received (INT64_MIN: none) and the oldest still held.
    std::int64_t newest_ns() const noexcept { return newest_; }
    std::int64_t oldest_ns() const noexcept { return oldest_; }

private:
    struct Stream {
        std::string name, header;
        std::deque<logio::StreamBlock> blocks;  // in the order received
    };
    std::map<std::size_t, Stream> streams_;
    std::int64_t newest_ = INT64_MIN, oldest_ = INT64_MAX;
};

}  // namespace hashtrace::live
